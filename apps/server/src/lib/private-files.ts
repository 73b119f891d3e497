/**
 * What Perch keeps in DATA_DIR (the SQLite database with its -wal and -shm, secret.key) is for
 * its own user only: password hashes, sessions and sealed credentials. Modes are set with chmod
 * after creating, so they do not depend on the umask Perch was started with (a umask only
 * removes bits, and 022 would leave the database readable by every local user).
 */
import fs from 'node:fs';

/** Owner only: read, write and enter. */
export const PRIVATE_DIR_MODE = 0o700;
/** Owner only: read and write. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and its parents) when missing, and makes the folder Perch created owner-only.
 * A folder that exists keeps its mode: it is the operator's (a mounted volume, a shared parent).
 */
export function ensurePrivateDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes `file` owner-only when it exists and others may read it. A file this user does not own
 * cannot be changed (EPERM): that is reported through `warn` and left as it is.
 */
export function restrictFile(file: string, warn: (message: string) => void = console.warn): void {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((mode & ~PRIVATE_FILE_MODE) === 0) return;
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    warn(
      `${file} is readable by others (mode ${mode.toString(8)}) and not ours to change: chmod 600 it`,
    );
  }
}

/** Creates `file` empty and owner-only when it does not exist yet; an existing one is kept. */
export function createPrivateFile(file: string): void {
  try {
    fs.writeFileSync(file, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return;
  }
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}
