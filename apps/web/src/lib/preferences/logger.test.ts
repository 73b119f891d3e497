import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '@/lib/logger';
import { preferencesStore } from './preferences';

afterEach(() => {
  preferencesStore.reset();
});

function spyConsole() {
  return {
    debug: vi.spyOn(console, 'debug').mockImplementation(() => undefined),
    info: vi.spyOn(console, 'info').mockImplementation(() => undefined),
    warn: vi.spyOn(console, 'warn').mockImplementation(() => undefined),
    error: vi.spyOn(console, 'error').mockImplementation(() => undefined),
  };
}

function logEveryLevel() {
  logger.debug('debug line');
  logger.info('info line');
  logger.warn('warn line');
  logger.error('error line');
}

describe('client logger', () => {
  it('drops debug at the default level (info) and prefixes the rest with [perch]', () => {
    const console = spyConsole();
    const details = { handle: 'nasa' };
    logEveryLevel();
    logger.info('with details', details, 42);

    expect(console.debug).not.toHaveBeenCalled();
    expect(console.info).toHaveBeenCalledWith('[perch] info line');
    expect(console.info).toHaveBeenCalledWith('[perch] with details', details, 42);
    expect(console.warn).toHaveBeenCalledWith('[perch] warn line');
    expect(console.error).toHaveBeenCalledWith('[perch] error line');
  });

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ] as const)('at level %s writes %j', (level, written) => {
    preferencesStore.update({ logLevel: level });
    const console = spyConsole();
    logEveryLevel();
    for (const method of ['debug', 'info', 'warn', 'error'] as const) {
      expect(console[method]).toHaveBeenCalledTimes(
        (written as readonly string[]).includes(method) ? 1 : 0,
      );
    }
  });

  it('follows a change of level at once', () => {
    const console = spyConsole();
    logger.debug('before');
    preferencesStore.update({ logLevel: 'debug' });
    logger.debug('after');
    expect(console.debug).toHaveBeenCalledTimes(1);
    expect(console.debug).toHaveBeenCalledWith('[perch] after');
  });
});
