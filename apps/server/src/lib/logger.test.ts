import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, loggerOptions, type LogOutput } from './logger.js';
import { onlyLogLine } from './test-factories.js';

/** The app's logger as app.ts makes it, writing into `output()`. */
function logTo(output: Omit<LogOutput, 'destination'>) {
  let written = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  });
  const app = Fastify({ logger: loggerOptions({ level: 'info' }, { ...output, destination }) });
  return { log: app.log, output: () => written };
}

describe('chooseLogFormat', () => {
  it.each([
    ['a terminal', { isTTY: true, nodeEnv: 'production' }, 'pretty'],
    ['a pipe or a file', { isTTY: false, nodeEnv: 'production' }, 'json'],
    ['a terminal under the tests', { isTTY: true, nodeEnv: 'test' }, 'json'],
    ['LOG_FORMAT=json on a terminal', { format: 'json', isTTY: true }, 'json'],
    ['LOG_FORMAT=pretty into a pipe', { format: 'pretty', isTTY: false }, 'pretty'],
    [
      'LOG_FORMAT=pretty under the tests',
      { format: 'pretty', isTTY: true, nodeEnv: 'test' },
      'pretty',
    ],
  ] as const)('%s: %s', (_case, output, format) => {
    expect(chooseLogFormat(output)).toBe(format);
  });
});

describe('the app logger', () => {
  it('writes pino-pretty lines on a terminal', async () => {
    const { log, output } = logTo({ isTTY: true, nodeEnv: 'production' });
    log.child({ module: 'collector' }).info({ handle: 'nasa' }, 'handle status');
    await expect.poll(output).toContain('handle status');
    const text = stripVTControlCharacters(output());
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: handle status\n/);
    expect(text).toContain('    module: "collector"\n    handle: "nasa"\n');
    expect(output()).not.toBe(text); // coloured
    expect(() => JSON.parse(output().split('\n')[0]!) as unknown).toThrow();
  });

  it('writes one JSON object a line elsewhere, an error with its stack as a field', () => {
    const { log, output } = logTo({ isTTY: false, nodeEnv: 'production' });
    log.child({ module: 'job-queue' }).warn({ err: new Error('boom') }, 'job queue error');
    const lines = output().trimEnd().split('\n');
    const line = onlyLogLine(lines);
    expect(line).toMatchObject({
      level: 40,
      module: 'job-queue',
      msg: 'job queue error',
      err: { type: 'Error', message: 'boom' },
    });
    expect((line.err as { stack: string }).stack).toMatch(/^Error: boom\n\s+at /);
  });

  it('writes pretty lines without colours when asked for them off a terminal', async () => {
    const { log, output } = logTo({ format: 'pretty', isTTY: false });
    log.info('database ready');
    await expect.poll(output).toContain('database ready');
    expect(output()).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: database ready\n$/);
  });
});
