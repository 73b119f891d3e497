import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** A name for this process: host, pid and a random part (logs, lock owners, message senders). */
export function newNodeId(): string {
  return `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
