/**
 * Server entry points run as their own processes, the way deployments run them: from source
 * under tsx with the `@perch/source` condition, for tests of start-up, crashes and scale-out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** apps/server: the folder server processes run in. */
const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface SpawnedServer {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
}

/**
 * Starts `entry` (a path from apps/server, e.g. src/main.ts) with `env` over this process's
 * environment, collecting its output.
 */
export function spawnFromSource(entry: string, env: NodeJS.ProcessEnv): SpawnedServer {
  const child = spawn(process.execPath, ['--conditions=@perch/source', '--import', 'tsx', entry], {
    cwd: SERVER_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}
