import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback HTTP proxy in front of a Perch server, for counting what browsers send it and for
 * pretending it died, so tests count requests at the server.
 *
 * - The browser opens the PROXY's origin: the SPA calls same-origin relative URLs, so everything
 *   (documents, assets, API calls, the SSE stream) goes through here. The Host header is passed
 *   on unchanged, so the server sees the origin the browser sees (Origin/CSRF checks, cookies).
 * - Bodies are piped both ways, unbuffered, so streaming answers (GET /api/v1/events) flow through.
 * - Every request is recorded at arrival: method, pathname, time, and how it ended.
 * - `down()` is a dead server: every open socket (idle keep-alive ones and those with requests or
 *   streams in flight) is destroyed, and while down every new connection is destroyed as soon as
 *   its request head has been read. The browser sees a reset connection (a network error, as from
 *   a crashed server), and the request is still recorded (outcome `refused`), so the test can
 *   count what the browser attempted during an outage. `up()` forwards again.
 */

export type ProxyOutcome =
  /** Forwarded and answered (status set); for a stream, the answer started. */
  | 'forwarded'
  /** Arrived while the proxy was down: the connection was destroyed unanswered. */
  | 'refused'
  /** Forwarded, but the upstream failed or the proxy went down before it completed. */
  | 'aborted';

export interface ProxiedRequest {
  method: string;
  /** The path without the query string, e.g. /api/v1/handles. */
  pathname: string;
  /** Path and query as requested. */
  url: string;
  /** Date.now() when the request head arrived. */
  at: number;
  outcome: ProxyOutcome | 'pending';
  /** The upstream's status, when it answered. */
  status?: number;
}

export interface CountingProxy {
  /** e.g. http://127.0.0.1:41235: open this in the browser. */
  origin: string;
  /** The server the proxy forwards to. */
  target: string;
  /** Requests per `${method} ${pathname}` since `since` (Date.now() ms; all by default). */
  counts(since?: number): Record<string, number>;
  /** The recorded requests (copies) that arrived at or after `since`, oldest first. */
  requests(since?: number): ProxiedRequest[];
  /** Forgets every recorded request. */
  reset(): void;
  /** Simulates a dead server (see the module comment). */
  down(): void;
  /** Forwards again. */
  up(): void;
  readonly isDown: boolean;
  /** Stops listening and destroys every open connection. */
  close(): Promise<void>;
}

/** Hop-by-hop headers are the proxy's own business on each side (RFC 9110, section 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

function pathnameOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Starts the proxy on 127.0.0.1 (a free port unless `port` is given) in front of `target`. */
export async function startCountingProxy(
  target: string,
  options: { port?: number } = {},
): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let log: ProxiedRequest[] = [];
  let isDown = false;
  const sockets = new Set<Socket>();
  const inFlight = new Set<http.ClientRequest>();

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const entry: ProxiedRequest = {
      method: req.method ?? 'GET',
      pathname: pathnameOf(url),
      url,
      at: Date.now(),
      outcome: 'pending',
    };
    log.push(entry);

    if (isDown) {
      entry.outcome = 'refused';
      req.socket.destroy();
      return;
    }

    const outgoing = http.request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: url,
        // Host stays the proxy's: the server sees the origin the browser uses.
        headers: endToEnd(req.headers),
        agent,
      },
      (answer) => {
        entry.status = answer.statusCode;
        entry.outcome = 'forwarded';
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
        // Streams (SSE) must reach the browser at once, not when a buffer fills.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => {
          entry.outcome = 'aborted';
          res.destroy();
        });
        answer.on('aborted', () => {
          entry.outcome = 'aborted';
          res.destroy();
        });
      },
    );
    inFlight.add(outgoing);
    outgoing.on('close', () => inFlight.delete(outgoing));
    outgoing.on('error', () => {
      entry.outcome = 'aborted';
      if (!res.headersSent) {
        // The upstream is unreachable: as a dead server would, say nothing.
        req.socket.destroy();
      } else {
        res.destroy();
      }
    });
    // The browser went away (tab closed, request aborted): stop the upstream call too.
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  });

  server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that speaks garbage or resets mid-request must not crash the test process.
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const destroyAll = () => {
    for (const request of inFlight) request.destroy();
    for (const socket of sockets) socket.destroy();
  };

  return {
    origin: `http://127.0.0.1:${port}`,
    target: upstream.origin,
    counts(since = 0) {
      const result: Record<string, number> = {};
      for (const entry of log) {
        if (entry.at < since) continue;
        const key = `${entry.method} ${entry.pathname}`;
        result[key] = (result[key] ?? 0) + 1;
      }
      return result;
    },
    requests(since = 0) {
      return log.filter((entry) => entry.at >= since).map((entry) => ({ ...entry }));
    },
    reset() {
      log = [];
    },
    down() {
      isDown = true;
      destroyAll();
      // Pooled upstream sockets would be stale after an outage in a real deployment too.
      agent.destroy();
    },
    up() {
      isDown = false;
    },
    get isDown() {
      return isDown;
    },
    async close() {
      isDown = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      destroyAll();
      agent.destroy();
      await closed;
    },
  };
}
