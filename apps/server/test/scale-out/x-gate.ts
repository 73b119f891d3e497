/**
 * A loopback proxy in front of the fake X for the scale-out test: it passes every request on as
 * it came, except a timeline page the test holds, so that the worker reading it stays mid-page
 * for as long as the test wants (to kill it or freeze it there).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldPage {
  /** Resolves once a worker asked for the page: the request is held from then on. */
  arrived: Promise<void>;
  /** Passes the held request on to X; nothing when the worker that sent it is gone. */
  release(): void;
}

export interface XGate {
  /** http://127.0.0.1:<port>, no trailing slash: the workers' X_API_BASE_URL. */
  baseUrl: string;
  /** Holds the next request for a further page (one with a cursor) of this user's timeline. */
  holdNextPage(xUserId: string): HeldPage;
  close(): Promise<void>;
}

interface Hold {
  xUserId: string;
  arrive: () => void;
  pass: (() => void) | undefined;
}

export async function startXGate(target: string): Promise<XGate> {
  const holds: Hold[] = [];
  const held = new Set<http.ServerResponse>();

  function forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const upstream = http.request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const hold = holds.find(
      (candidate) =>
        candidate.pass === undefined &&
        url.pathname === `/2/users/${candidate.xUserId}/tweets` &&
        url.searchParams.has('pagination_token'),
    );
    if (!hold) {
      forward(req, res);
      return;
    }
    let gone = false;
    req.socket.once('close', () => (gone = true));
    held.add(res);
    hold.pass = () => {
      if (!held.delete(res) || gone) return;
      forward(req, res);
    };
    hold.arrive();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    holdNextPage(xUserId) {
      let arrive = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const hold: Hold = { xUserId, arrive, pass: undefined };
      holds.push(hold);
      return { arrived, release: () => hold.pass?.() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
