/**
 * The origin (`scheme://host[:port]`) of the absolute addresses Perch hands out: feed URLs, the
 * X OAuth redirect. PUBLIC_URL when set, and then the request's Host is never read. Without it,
 * the request's own protocol and host, but only a host on the allow-list (ALLOWED_HOSTS, by
 * default the loopback names): the Host header is the client's to write, and a forged one must
 * not put another domain into an address that a feed reader, a cache or X then follows.
 */
import net from 'node:net';
import { AppError } from './errors.js';

/** Names that reach this machine only: the allow-list when ALLOWED_HOSTS is unset. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export const HOST_NOT_ALLOWED_MESSAGE =
  'This address is not served here: set PUBLIC_URL or ALLOWED_HOSTS.';

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

interface HostPort {
  /** Lower case; an IPv6 address keeps its brackets. */
  name: string;
  port: number | null;
}

const HOST_PORT =
  /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*)(?::(\d{1,5}))?$/;

/** `name`, `name:port`, `[v6]` or `[v6]:port`; null for anything else (a scheme, a path, ...). */
export function parseHost(value: string): HostPort | null {
  const match = HOST_PORT.exec(value.trim().toLowerCase());
  if (!match) return null;
  const [, name = '', port] = match;
  if (name.startsWith('[') && !net.isIPv6(name.slice(1, -1))) return null;
  if (port !== undefined && Number(port) > 65_535) return null;
  return { name, port: port === undefined ? null : Number(port) };
}

const hostText = ({ name, port }: HostPort) => (port === null ? name : `${name}:${port}`);

/** Reads ALLOWED_HOSTS (comma list of host[:port]): the list, unset when blank, or the problem. */
export function parseAllowedHosts(
  raw: string,
): { value: readonly string[] | undefined } | { problem: string } {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { value: undefined };
  const bad = entries.filter((entry) => parseHost(entry) === null);
  if (bad.length > 0) {
    return {
      problem: `each entry must be a host or host:port (e.g. perch.example.com or perch.lan:8080); not a host: ${bad.join(', ')}`,
    };
  }
  return { value: entries.map((entry) => hostText(parseHost(entry) as HostPort)) };
}

/** The allow-list when ALLOWED_HOSTS is unset: the loopback names and PUBLIC_URL's host. */
export function defaultAllowedHosts(publicUrl: string | undefined): readonly string[] {
  if (!publicUrl) return LOOPBACK_HOSTS;
  return [...LOOPBACK_HOSTS, new URL(publicUrl).host];
}

/**
 * Whether a request's host may appear in an address. An entry without a port allows its name on
 * any port; one with a port only that port (a host sent without one has its scheme's).
 */
export function isAllowedHost(
  host: string,
  protocol: 'http' | 'https',
  allowed: readonly string[],
): boolean {
  const asked = parseHost(host);
  if (!asked) return false;
  const port = asked.port ?? DEFAULT_PORTS[protocol];
  return allowed.some((entry) => {
    const allowedHost = parseHost(entry);
    return (
      allowedHost !== null &&
      allowedHost.name === asked.name &&
      (allowedHost.port === null || allowedHost.port === port)
    );
  });
}

export interface OriginSettings {
  /** PUBLIC_URL, without trailing slash. */
  PUBLIC_URL?: string;
  /** ALLOWED_HOSTS as the config resolved it. */
  ALLOWED_HOSTS: readonly string[];
}

/**
 * The origin addresses built for this request start with: PUBLIC_URL, or the request's protocol
 * and host (`request.protocol` and `request.host`, which follow TRUST_PROXY). Throws 400
 * HOST_NOT_ALLOWED, naming no host, when the host is not on the allow-list.
 */
export function requestOrigin(
  request: { protocol: string; host: string },
  settings: OriginSettings,
): string {
  if (settings.PUBLIC_URL) return settings.PUBLIC_URL;
  const { protocol } = request;
  const host = parseHost(request.host);
  if (
    (protocol !== 'http' && protocol !== 'https') ||
    !host ||
    !isAllowedHost(request.host, protocol, settings.ALLOWED_HOSTS)
  ) {
    throw new AppError(400, 'HOST_NOT_ALLOWED', HOST_NOT_ALLOWED_MESSAGE);
  }
  return `${protocol}://${hostText(host)}`;
}
