/** What the loopback fakes share: their listening socket and their queues of scripted answers. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 on an ephemeral port; the origin, `http://127.0.0.1:<port>`. */
export async function listenOnLoopback(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * The scripted answer at the head of `queue`, used once more: it leaves the queue when its
 * `times` are used up. Undefined when nothing is scripted.
 */
export function takeScripted<T extends { times: number }>(queue: T[]): T | undefined {
  const head = queue[0];
  if (!head) return undefined;
  head.times -= 1;
  if (head.times <= 0) queue.shift();
  return head;
}
