import type { FastifyBaseLogger } from 'fastify';

/** The part of Fastify's logger that background workers write to. */
export type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
