/**
 * A loopback webhook receiver, on 127.0.0.1:0 with node:http, for testing the webhook sender
 * over real HTTP. It checks every request's signature as a receiver should (secret.ts's
 * verifySignature over the raw body) and records what came, then answers from a script:
 *
 * - by default 200 with `{"ok":true}`;
 * - scripted answers, each used `times` times: a status with a body and headers (4xx, 5xx, 429
 *   with Retry-After), a redirect to another path, a hang (never answers: for time limits), a
 *   200 streaming `bytes` bytes (for the answer cap; with `hang`, it announces twice as many and
 *   never ends, so only a client that stops reading finishes), or a reset connection (an outage).
 */
import http from 'node:http';
import { verifySignature } from '../../src/notify/webhook/secret.js';
import { listenOnLoopback, takeScripted } from './loopback.js';

export interface FakeWebhookRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The signature header verified with the receiver's secret and a 5-minute tolerance. */
  signatureValid: boolean;
}

export type FakeWebhookAnswer =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'hang' }
  | { kind: 'stream'; bytes: number; hang?: boolean }
  | { kind: 'reset' };

export interface FakeWebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The receiver's address for `path` (default '/hook'). */
  url(path?: string): string;
  secret: string;
  requests: FakeWebhookRequest[];
  requestsTo(path: string): FakeWebhookRequest[];
  /** Answers the next `times` requests (default 1) with `answer`. */
  script(answer: FakeWebhookAnswer, times?: number): void;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(16 * 1024, 'x');

/**
 * Writes `bytes` bytes, a chunk at a time as the client reads them, until done or it leaves;
 * with `hang`, it announces twice as many and stays open after them.
 */
function stream(res: http.ServerResponse, bytes: number, hang = false): void {
  let left = bytes;
  const announced = hang ? bytes * 2 : bytes;
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(announced) });
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, left));
      left -= chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (left === 0 && !hang) res.end();
  };
  pump();
}

function answer(res: http.ServerResponse, scripted: FakeWebhookAnswer): void {
  switch (scripted.kind) {
    case 'status':
      res.writeHead(scripted.status, { 'content-type': 'text/plain', ...scripted.headers });
      res.end(scripted.body ?? '');
      return;
    case 'redirect':
      res.writeHead(scripted.status, { location: scripted.location });
      res.end();
      return;
    case 'hang':
      return;
    case 'stream':
      stream(res, scripted.bytes, scripted.hang);
      return;
    case 'reset':
      res.socket?.destroy();
  }
}

export async function startFakeWebhookReceiver(
  options: { secret?: string } = {},
): Promise<FakeWebhookReceiver> {
  const secret = options.secret ?? 'whsec_fake-receiver-secret';
  const requests: FakeWebhookRequest[] = [];
  const scripts: (FakeWebhookAnswer & { times: number })[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = req.headers['x-perch-timestamp'];
      const signature = req.headers['x-perch-signature'];
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        signatureValid:
          typeof timestamp === 'string' &&
          typeof signature === 'string' &&
          verifySignature(secret, timestamp, body, signature),
      });
      answer(res, takeScripted(scripts) ?? { kind: 'status', status: 200, body: '{"ok":true}' });
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const origin = await listenOnLoopback(server);

  return {
    origin,
    url: (path = '/hook') => `${origin}${path}`,
    secret,
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    script: (scripted, times = 1) => scripts.push({ ...scripted, times }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((caught) => (caught ? reject(caught) : resolve()));
      }),
  };
}
