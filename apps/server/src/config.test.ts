import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
      TRUST_PROXY: true,
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
