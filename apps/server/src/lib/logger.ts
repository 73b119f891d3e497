/**
 * The process's log: one JSON object a line (for log collectors, `docker logs`, files), or, for
 * a person at a terminal, pino-pretty's coloured lines. LOG_FORMAT picks one; unset, stdout being
 * a terminal picks pretty, except under the tests, whose output is read by programs.
 */
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';

/** The part of Fastify's logger that background workers write to. */
export type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export type LogFormat = 'json' | 'pretty';

/** Fastify's `logger` option as an object (pino's options, and `stream`). */
export type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

export interface LogOutput {
  /** LOG_FORMAT; unset: chosen by `isTTY` and `nodeEnv`. */
  format?: LogFormat;
  /** Whether stdout is a terminal (default: `process.stdout.isTTY`). */
  isTTY?: boolean;
  /** NODE_ENV (default: the process's); the test runner sets 'test'. */
  nodeEnv?: string;
  /** Where the lines go (default: stdout). */
  destination?: NodeJS.WritableStream;
}

/** A logger that drops every line (a worker's default until it is handed the app's). */
export const silentLog: Logger = { info: () => {}, warn: () => {}, error: () => {} };

const isTerminal = (output: LogOutput) => output.isTTY ?? process.stdout.isTTY === true;

/** LOG_FORMAT when set; otherwise pretty on a terminal outside the tests, JSON everywhere else. */
export function chooseLogFormat(output: LogOutput = {}): LogFormat {
  if (output.format) return output.format;
  const nodeEnv = output.nodeEnv ?? process.env.NODE_ENV;
  return isTerminal(output) && nodeEnv !== 'test' ? 'pretty' : 'json';
}

/**
 * Fastify's `logger` option: `options` (level, serializers) written as `chooseLogFormat` says.
 * Pretty lines are written synchronously, so they keep their order with console.log's.
 */
export function loggerOptions(options: LoggerOptions, output: LogOutput = {}): LoggerOptions {
  if (chooseLogFormat(output) === 'json') {
    return output.destination ? { ...options, stream: output.destination } : options;
  }
  // Loaded only here: a process that writes JSON (a service, a container) never loads it.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return {
    ...options,
    stream: pretty({
      // Escape codes only where a terminal shows them (LOG_FORMAT=pretty into a file: none).
      colorize: isTerminal(output),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
      ...(output.destination ? { destination: output.destination } : {}),
    }),
  };
}

/** The process's pino logger, made from the same options and written as `loggerOptions` says. */
export function createLogger(options: LoggerOptions, output: LogOutput = {}): pino.Logger {
  const { stream, ...rest } = loggerOptions(options, output);
  return stream ? pino(rest, stream) : pino(rest);
}
