import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { IDLE_IN_TRANSACTION_TIMEOUT_MS, idleTimeoutForLease } from './db/index.js';

/** The ConfigError thrown by loadConfig(env), or a failure if it did not throw one. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('uses the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 3000,
      DATA_DIR: path.resolve('./data'),
      LOG_LEVEL: 'info',
      COOKIE_SECURE: false,
      TRUST_PROXY: false,
      TWEET_SOURCE: 'demo',
      X_API_BASE_URL: 'https://api.x.com',
      X_OAUTH_AUTHORIZE_URL: 'https://x.com/i/oauth2/authorize',
      MONITOR_INTERVAL_SECONDS: 60,
      COLLECTOR_CONCURRENCY: 4,
      TELEGRAM_API_BASE_URL: 'https://api.telegram.org',
      DISCORD_API_BASE_URL: 'https://discord.com/api/v10',
      DEV_LOGIN: false,
    });
    expect(path.isAbsolute(config.DATA_DIR)).toBe(true);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.X_BEARER_TOKEN).toBeUndefined();
    expect(config.TELEGRAM_BOT_TOKEN).toBeUndefined();
    expect(config.DISCORD_BOT_TOKEN).toBeUndefined();
  });

  it('reads every value it is given', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '8080',
      DATA_DIR: 'some/relative/dir',
      DATABASE_URL: 'postgres://perch@db:5432/perch',
      REDIS_URL: 'redis://cache:6379',
      LOG_LEVEL: 'debug',
      COOKIE_SECURE: 'true',
      TRUST_PROXY: '1',
      MONITOR_INTERVAL_SECONDS: '120',
      DEMO_PAGE_DELAY_MS: '0',
      SUPPORT_EMAIL: 'help@example.org',
    });
    expect(config).toMatchObject({
      HOST: '0.0.0.0',
      PORT: 8080,
      DATA_DIR: path.resolve('some/relative/dir'),
      DATABASE_URL: 'postgres://perch@db:5432/perch',
      REDIS_URL: 'redis://cache:6379',
      LOG_LEVEL: 'debug',
      COOKIE_SECURE: true,
      TRUST_PROXY: 1,
      MONITOR_INTERVAL_SECONDS: 120,
      DEMO_PAGE_DELAY_MS: 0,
      SUPPORT_EMAIL: 'help@example.org',
    });
  });

  it('picks the x-api source when X_BEARER_TOKEN is set and demo when it is blank', () => {
    expect(loadConfig({ X_BEARER_TOKEN: 'abc' })).toMatchObject({
      TWEET_SOURCE: 'x-api',
      X_BEARER_TOKEN: 'abc',
    });
    expect(loadConfig({ X_BEARER_TOKEN: '   ' }).TWEET_SOURCE).toBe('demo');
    expect(loadConfig({ X_BEARER_TOKEN: 'abc', TWEET_SOURCE: 'demo' }).TWEET_SOURCE).toBe('demo');
  });

  it('refuses the x-api source without a bearer token', () => {
    const error = configError({ TWEET_SOURCE: 'x-api' });
    expect(error.problems).toEqual(['TWEET_SOURCE: x-api needs X_BEARER_TOKEN']);
    expect(error.message).toContain('X_BEARER_TOKEN');
  });

  it('lists every bad value at once', () => {
    const error = configError({
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      SUPPORT_EMAIL: 'x',
      COOKIE_SECURE: 'maybe',
      TWEET_SOURCE: 'x-api',
      DATABASE_URL: 'mysql://db/perch',
    });
    const named = error.problems.map((problem) => problem.split(':')[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'PORT',
        'LOG_LEVEL',
        'SUPPORT_EMAIL',
        'COOKIE_SECURE',
        'TWEET_SOURCE',
        'DATABASE_URL',
      ]),
    );
    expect(error.problems).toHaveLength(6);
    for (const name of named) expect(error.message).toContain(`- ${name}:`);
  });

  it('rejects out-of-range numbers and unknown enum values', () => {
    expect(configError({ PORT: '70000' }).problems[0]).toMatch(/^PORT:/);
    expect(configError({ PORT: '-1' }).problems[0]).toMatch(/^PORT:/);
    expect(configError({ MONITOR_INTERVAL_SECONDS: '1' }).problems[0]).toMatch(
      /^MONITOR_INTERVAL_SECONDS:/,
    );
    expect(configError({ TWEET_SOURCE: 'scraper' }).problems[0]).toMatch(/^TWEET_SOURCE:/);
    expect(configError({ X_API_BASE_URL: 'not a url' }).problems[0]).toMatch(/^X_API_BASE_URL:/);
  });

  it('reads COLLECTOR_LEASE_SECONDS: 15 by default, with a 10 s idle-transaction limit; 3-300', () => {
    const lease = loadConfig({}).COLLECTOR_LEASE_SECONDS;
    expect(lease).toBe(15);
    // At the default, the limit main.ts sets is the one the database layer documents.
    expect(idleTimeoutForLease(lease)).toBe(IDLE_IN_TRANSACTION_TIMEOUT_MS);
    expect(loadConfig({ COLLECTOR_LEASE_SECONDS: '6' }).COLLECTOR_LEASE_SECONDS).toBe(6);
    expect(idleTimeoutForLease(6)).toBe(4_000);
    for (const bad of ['2', '301', 'soon']) {
      expect(configError({ COLLECTOR_LEASE_SECONDS: bad }).problems[0]).toMatch(
        /^COLLECTOR_LEASE_SECONDS:/,
      );
    }
  });

  it('reads X_METRIC_REFRESH: standard by default, economy when asked, and refuses others', () => {
    expect(loadConfig({}).X_METRIC_REFRESH).toBe('standard');
    expect(loadConfig({ X_METRIC_REFRESH: '' }).X_METRIC_REFRESH).toBe('standard');
    expect(loadConfig({ X_METRIC_REFRESH: 'standard' }).X_METRIC_REFRESH).toBe('standard');
    expect(loadConfig({ X_METRIC_REFRESH: ' Economy ' }).X_METRIC_REFRESH).toBe('economy');
    expect(configError({ X_METRIC_REFRESH: 'cheap' }).problems).toEqual([
      'X_METRIC_REFRESH: must be standard or economy (standard re-reads posts at 1, 3, 6, 24 and 72 h; economy only on the day they were posted)',
    ]);
  });

  it('reads DEMO_CHALLENGE_CODE trimmed, unset when blank, and refuses one over 64 characters', () => {
    expect(loadConfig({}).DEMO_CHALLENGE_CODE).toBeUndefined();
    expect(loadConfig({ DEMO_CHALLENGE_CODE: '   ' }).DEMO_CHALLENGE_CODE).toBeUndefined();
    expect(loadConfig({ DEMO_CHALLENGE_CODE: ' 424242 ' }).DEMO_CHALLENGE_CODE).toBe('424242');
    expect(configError({ DEMO_CHALLENGE_CODE: '9'.repeat(65) }).problems).toEqual([
      'DEMO_CHALLENGE_CODE: must be at most 64 characters',
    ]);
  });

  it('accepts postgresql:// URLs and refuses other database schemes', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).DATABASE_URL).toBe(
      'postgresql://h/db',
    );
    expect(configError({ DATABASE_URL: 'sqlite://x.db' }).problems).toEqual([
      'DATABASE_URL: must be a postgres:// or postgresql:// URL',
    ]);
  });

  it('reads TRUST_PROXY as no proxy, a hop count (true is one) or a list of proxy addresses', () => {
    const trust = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).TRUST_PROXY;
    for (const none of [undefined, '', ' ', 'false', 'no', '0', 'FALSE']) {
      expect(trust(none), String(none)).toBe(false);
    }
    expect(trust('true')).toBe(1);
    expect(trust('yes')).toBe(1);
    expect(trust('1')).toBe(1);
    expect(trust(' 2 ')).toBe(2);
    expect(trust('16')).toBe(16);
    expect(trust('10.0.0.0/8,127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(trust(' 10.1.2.3 , fd00::/8,::1,loopback, ')).toEqual([
      '10.1.2.3',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
    expect(trust('192.168.0.0/16,172.16.0.0/12,0.0.0.0/0')).toHaveLength(3);
  });

  it('refuses a TRUST_PROXY that is neither, naming the bad entries', () => {
    for (const bad of [
      'maybe',
      '17',
      '-1',
      '1.5',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/8,proxy.internal',
      '10.0.0.256',
      '10.0.0.0/255.0.0.0',
      'fe80::1%eth0',
      '*',
    ]) {
      const problems = configError({ TRUST_PROXY: bad }).problems;
      expect(problems, bad).toHaveLength(1);
      expect(problems[0], bad).toMatch(/^TRUST_PROXY: /);
    }
    expect(configError({ TRUST_PROXY: '10.0.0.0/8, proxy.internal, 1.2.3' }).problems).toEqual([
      'TRUST_PROXY: must be false, true (one proxy), a hop count (1, 2, ...) or a comma list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1); not an address: proxy.internal, 1.2.3',
    ]);
    expect(configError({ TRUST_PROXY: '40' }).problems).toEqual([
      'TRUST_PROXY: at most 16 proxies in front, not 40',
    ]);
  });

  it('reads ALLOWED_HOSTS: the loopback names by default, plus the host of PUBLIC_URL', () => {
    expect(loadConfig({}).ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ ALLOWED_HOSTS: ' , ' }).ALLOWED_HOSTS).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
    ]);
    expect(loadConfig({ PUBLIC_URL: 'https://Perch.Example.com:8443/app/' }).ALLOWED_HOSTS).toEqual(
      ['localhost', '127.0.0.1', '[::1]', 'perch.example.com:8443'],
    );
    // A list replaces the default, lower-cased.
    expect(
      loadConfig({ ALLOWED_HOSTS: 'Perch.Example.com, perch.lan:8080,[::1]:3000,10.0.0.5' })
        .ALLOWED_HOSTS,
    ).toEqual(['perch.example.com', 'perch.lan:8080', '[::1]:3000', '10.0.0.5']);
  });

  it('refuses an ALLOWED_HOSTS entry that is not a host[:port]', () => {
    for (const bad of [
      'https://perch.example.com',
      'perch.example.com/app',
      '*.example.com',
      'perch.example.com:99999',
      'user@perch.example.com',
      '[not-v6]',
      'perch example.com',
    ]) {
      const problems = configError({ ALLOWED_HOSTS: `localhost,${bad}` }).problems;
      expect(problems, bad).toEqual([
        `ALLOWED_HOSTS: each entry must be a host or host:port (e.g. perch.example.com or perch.lan:8080); not a host: ${bad}`,
      ]);
    }
  });

  it('reads PERCH_ROLE and REDIS_PREFIX: all and perch by default (also when blank); api and worker need PostgreSQL and Redis', () => {
    expect(loadConfig({})).toMatchObject({ PERCH_ROLE: 'all', REDIS_PREFIX: 'perch' });
    expect(loadConfig({ PERCH_ROLE: '', REDIS_PREFIX: ' ' })).toMatchObject({
      PERCH_ROLE: 'all',
      REDIS_PREFIX: 'perch',
    });
    const shared = {
      DATABASE_URL: 'postgres://perch@db:5432/perch',
      REDIS_URL: 'redis://cache:6379',
      REDIS_PREFIX: 'perch-eu',
    };
    expect(loadConfig({ ...shared, PERCH_ROLE: 'worker' })).toMatchObject({
      PERCH_ROLE: 'worker',
      REDIS_PREFIX: 'perch-eu',
    });
    expect(configError({ PERCH_ROLE: 'api' }).problems).toEqual([
      'PERCH_ROLE: api runs beside other processes, which needs REDIS_URL (jobs, events and shared limits)',
      'PERCH_ROLE: api needs DATABASE_URL (PostgreSQL shared by every process)',
    ]);
    expect(configError({ PERCH_ROLE: 'scheduler' }).problems[0]).toMatch(/^PERCH_ROLE: /);
    expect(configError({ REDIS_PREFIX: 'a b' }).problems).toEqual([
      'REDIS_PREFIX: letters, digits, _ . - only (at most 64)',
    ]);
  });
});
