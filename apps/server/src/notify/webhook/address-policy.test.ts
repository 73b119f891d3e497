import { describe, expect, it } from 'vitest';
import { addressKind, addressPolicyFrom, addressRefusal, PUBLIC_ONLY } from './address-policy.js';

describe('addressKind', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::7f00:1', 'reserved'],
    // IPv4-mapped IPv6 is the IPv4 address it carries, in either spelling.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['localhost', 'invalid'],
    ['example.com', 'invalid'],
    ['', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe('addressRefusal', () => {
  const loopbackAllowed = { allowLoopback: true, allowPrivate: false };
  const privateAllowed = { allowLoopback: false, allowPrivate: true };
  const everythingAllowed = { allowLoopback: true, allowPrivate: true };

  it.each([
    ['8.8.8.8', PUBLIC_ONLY, true],
    ['127.0.0.1', PUBLIC_ONLY, false],
    ['127.0.0.1', loopbackAllowed, true],
    ['::1', loopbackAllowed, true],
    ['::ffff:127.0.0.1', loopbackAllowed, true],
    ['::ffff:127.0.0.1', PUBLIC_ONLY, false],
    ['127.0.0.1', privateAllowed, false],
    ['192.168.0.2', PUBLIC_ONLY, false],
    ['192.168.0.2', loopbackAllowed, false],
    ['192.168.0.2', privateAllowed, true],
    ['fd00::2', privateAllowed, true],
    ['100.64.1.1', privateAllowed, true],
    // Never reachable, whatever the switches say.
    ['169.254.169.254', everythingAllowed, false],
    ['fe80::1', everythingAllowed, false],
    ['0.0.0.0', everythingAllowed, false],
    ['::', everythingAllowed, false],
    ['224.0.0.251', everythingAllowed, false],
    ['ff02::fb', everythingAllowed, false],
    ['not-an-ip', everythingAllowed, false],
  ])('%s with %o: allowed %s', (address, policy, allowed) => {
    expect(addressRefusal(address, policy) === null).toBe(allowed);
  });

  it('says which address was refused and why', () => {
    expect(addressRefusal('10.0.0.5', PUBLIC_ONLY)).toBe(
      '10.0.0.5 is a private network address, which webhooks may not reach',
    );
    expect(addressRefusal('169.254.169.254', PUBLIC_ONLY)).toMatch(/link-local/);
  });

  it('reads the policy from config', () => {
    expect(
      addressPolicyFrom({ WEBHOOK_ALLOW_LOOPBACK: true, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false }),
    ).toEqual({ allowLoopback: true, allowPrivate: false });
  });
});
