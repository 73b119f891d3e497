// `npm run dev`: the API (restarting on change, sources run directly) and Vite's dev server.
import { spawn } from 'node:child_process';
import { ROOT, ensureInstalled } from './lib.mjs';

ensureInstalled();
const children = [
  spawn('npm', ['run', 'dev', '-w', '@perch/server'], { cwd: ROOT, stdio: 'inherit' }),
  spawn('npm', ['run', 'dev', '-w', '@perch/web'], { cwd: ROOT, stdio: 'inherit' }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children) child.on('exit', stop);
