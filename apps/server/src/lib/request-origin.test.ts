import { describe, expect, it } from 'vitest';
import {
  HOST_NOT_ALLOWED_MESSAGE,
  LOOPBACK_HOSTS,
  isAllowedHost,
  parseHost,
  requestOrigin,
} from './request-origin.js';

describe('parseHost', () => {
  it.each([
    ['localhost', { name: 'localhost', port: null }],
    ['LocalHost:3000', { name: 'localhost', port: 3000 }],
    ['127.0.0.1:80', { name: '127.0.0.1', port: 80 }],
    ['[::1]', { name: '[::1]', port: null }],
    ['[::1]:3000', { name: '[::1]', port: 3000 }],
    ['perch_api-1:3000', { name: 'perch_api-1', port: 3000 }],
    ['perch.example.com', { name: 'perch.example.com', port: null }],
  ])('reads %s', (value, expected) => {
    expect(parseHost(value)).toEqual(expected);
  });

  it.each([
    '',
    'https://perch.example.com',
    'perch.example.com/path',
    'evil.example@perch.example.com',
    'perch.example.com:',
    'perch.example.com:65536',
    '[::1',
    '[evil.example]',
    '::1',
    '-perch.example.com',
    'perch..example.com',
    'perch.example.com, evil.example',
  ])('refuses %j', (value) => {
    expect(parseHost(value)).toBeNull();
  });
});

describe('isAllowedHost', () => {
  const allowed = [...LOOPBACK_HOSTS, 'perch.lan:8080', 'perch.example.com:443'];
  it.each([
    ['localhost:3000', 'http', true],
    ['127.0.0.1', 'http', true],
    ['[::1]:5173', 'http', true],
    ['LOCALHOST:3000', 'http', true],
    ['perch.lan:8080', 'http', true],
    // A port in the list allows only that port; a host sent without one has its scheme's.
    ['perch.lan', 'http', false],
    ['perch.lan:8081', 'http', false],
    ['perch.example.com', 'https', true],
    ['perch.example.com', 'http', false],
    ['evil.example', 'http', false],
    ['localhost.evil.example', 'http', false],
    ['evil.example:3000', 'http', false],
    ['localhost@evil.example', 'http', false],
    ['', 'http', false],
  ] as const)('%j over %s: %s', (host, protocol, expected) => {
    expect(isAllowedHost(host, protocol, allowed)).toBe(expected);
  });
});

describe('requestOrigin', () => {
  const settings = { ALLOWED_HOSTS: LOOPBACK_HOSTS };

  it("builds the origin from an allowed host and the request's protocol", () => {
    expect(requestOrigin({ protocol: 'http', host: 'LocalHost:3000' }, settings)).toBe(
      'http://localhost:3000',
    );
    expect(requestOrigin({ protocol: 'https', host: '[::1]:8443' }, settings)).toBe(
      'https://[::1]:8443',
    );
  });

  it('refuses any other host, or a protocol that is not http(s), without naming the host', () => {
    for (const request of [
      { protocol: 'http', host: 'evil.example' },
      { protocol: 'https', host: 'evil.example:3000' },
      { protocol: 'javascript', host: 'localhost' },
      { protocol: 'http', host: '' },
    ]) {
      expect(() => requestOrigin(request, settings)).toThrow(
        expect.objectContaining({
          statusCode: 400,
          code: 'HOST_NOT_ALLOWED',
          message: HOST_NOT_ALLOWED_MESSAGE,
        }),
      );
    }
  });

  it('answers PUBLIC_URL when it is set, whatever the request says', () => {
    const withPublicUrl = { ...settings, PUBLIC_URL: 'https://perch.example.com/app' };
    expect(requestOrigin({ protocol: 'http', host: 'evil.example' }, withPublicUrl)).toBe(
      'https://perch.example.com/app',
    );
  });
});
