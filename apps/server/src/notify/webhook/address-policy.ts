/**
 * Which IP addresses a webhook may connect to (server-side request forgery: a user's URL must
 * not reach this machine, the local network or a cloud metadata service).
 *
 * - Every address is sorted into one kind; only `public` ones are reachable by default.
 * - `loopback` is allowed only with WEBHOOK_ALLOW_LOOPBACK (tests and a receiver on the same
 *   machine); `private` (RFC 1918, unique local fc00::/7, carrier-grade NAT 100.64/10) only with
 *   WEBHOOK_ALLOW_PRIVATE_NETWORKS (a receiver on the home or office network).
 * - Link-local (169.254/16 holds the metadata services), unspecified, multicast and reserved
 *   addresses are never reached, whatever the switches say.
 * - IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`, `::ffff:7f00:1`) are the IPv4 address they
 *   carry: node:net's BlockList matches IPv4 rules against them.
 *
 * The rules are checked on the resolved addresses at connect time (webhook-sender.ts), so a
 * host name that resolves elsewhere between saving and sending is still caught.
 */
import net from 'node:net';

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid';

/** What the operator allows beyond public addresses (from config, see `addressPolicyFrom`). */
export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** The default: public addresses only. */
export const PUBLIC_ONLY: AddressPolicy = { allowLoopback: false, allowPrivate: false };

/** The ranges of each kind but `public` and `invalid`, checked in this order. */
const RANGES: [Exclude<AddressKind, 'public' | 'invalid'>, string, number][] = [
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', '100.64.0.0', 10],
  ['private', 'fc00::', 7],
  ['link_local', '169.254.0.0', 16],
  ['link_local', 'fe80::', 10],
  ['multicast', '224.0.0.0', 4],
  ['multicast', 'ff00::', 8],
  // IETF protocol assignments, benchmarking networks, the old class E and broadcast.
  ['reserved', '192.0.0.0', 24],
  ['reserved', '198.18.0.0', 15],
  ['reserved', '240.0.0.0', 4],
  // The deprecated IPv4-compatible form (::a.b.c.d), which some stacks still route as IPv4.
  ['reserved', '::', 96],
];

/** One BlockList per kind, built once: `check` is then a lookup, not a parse of every range. */
const LISTS = RANGES.reduce((lists, [kind, address, prefix]) => {
  let list = lists.get(kind);
  if (!list) {
    list = new net.BlockList();
    lists.set(kind, list);
  }
  list.addSubnet(address, prefix, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  return lists;
}, new Map<AddressKind, net.BlockList>());

/** The kind of an IP address (`invalid` when it is not one, e.g. a host name). */
export function addressKind(address: string): AddressKind {
  const version = net.isIP(address);
  if (version === 0) return 'invalid';
  const type = version === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of LISTS) {
    if (list.check(address, type)) return kind;
  }
  return 'public';
}

/** Why an address is refused, for the delivery log and the Test button. */
const REFUSAL: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  link_local: 'a link-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
};

/** Null when a webhook may connect to `address`, else why not ('10.0.0.5 is a private ...'). */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  const kind = addressKind(address);
  if (kind === 'public') return null;
  if (kind === 'loopback' && policy.allowLoopback) return null;
  if (kind === 'private' && policy.allowPrivate) return null;
  return `${address} is ${REFUSAL[kind]}, which webhooks may not reach`;
}

/** The policy the operator chose. */
export function addressPolicyFrom(config: {
  WEBHOOK_ALLOW_LOOPBACK: boolean;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
}): AddressPolicy {
  return {
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  };
}
