import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
} from 'fastify-type-provider-zod';
import { MESSAGES, type ErrorEnvelope } from '@perch/shared';
import { AppError } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Message of a 400 from this route's schema validation (the spec's text for the form). */
    invalidMessage?: string;
    /** A 400 from this route's schema validation says what was wrong in its message too. */
    useIssueMessage?: boolean;
  }
}

function send(reply: FastifyReply, status: number, body: ErrorEnvelope): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Fastify's own 4xx codes that map to a fixed text of ours. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'INVALID_JSON',
    message: MESSAGES.malformedJson,
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'INVALID_JSON',
    message: MESSAGES.malformedJson,
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: MESSAGES.unsupportedMediaType,
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: MESSAGES.payloadTooLarge,
  },
};

/**
 * The errors Fastify's router raises before any hook runs, which app.ts routes here through
 * `frameworkErrors`: a path that is not valid percent-encoding, and a path parameter longer
 * than the router accepts (100 characters; no id or handle comes close). Fastify's own answer
 * has another shape and echoes the whole path.
 */
export function routerErrorEnvelope(error: FastifyError): { status: number; body: ErrorEnvelope } {
  if (error.code === 'FST_ERR_BAD_URL') {
    return {
      status: 400,
      body: { success: false, message: MESSAGES.invalidRequest, code: 'INVALID_URL' },
    };
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      status: 414,
      body: { success: false, message: MESSAGES.invalidRequest, code: 'URI_TOO_LONG' },
    };
  }
  return {
    status: 500,
    body: { success: false, message: MESSAGES.internalError, code: 'INTERNAL_ERROR' },
  };
}

/**
 * Postgres cannot store text with a NUL character and refuses the whole query (22021). Such
 * text only ever comes from the client, so it is bad input, not a server fault.
 */
function isUnstorableText(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '22021';
}

/** The status and envelope of an error. */
interface ErrorAnswer {
  status: number;
  body: ErrorEnvelope;
}

/** A 400 from the route's schema: its issues in `details`, the route's text in `message`. */
function validationAnswer(
  validation: { message?: string }[],
  request: FastifyRequest,
): ErrorAnswer {
  const issues = [...new Set(validation.map((issue) => issue.message))];
  const { invalidMessage, useIssueMessage } = request.routeOptions.config;
  return {
    status: 400,
    body: {
      success: false,
      message:
        invalidMessage ?? (useIssueMessage && issues[0] ? issues[0] : MESSAGES.invalidRequest),
      code: 'VALIDATION_ERROR',
      details: issues.join(' '),
    },
  };
}

/**
 * What the client is told about an error that says what went wrong (an AppError, a request we
 * cannot read or accept); null for anything unexpected, which is a 500.
 */
function explainedAnswer(error: FastifyError, request: FastifyRequest): ErrorAnswer | null {
  if (error instanceof AppError) {
    const { statusCode: status, message, code, details } = error;
    return { status, body: { success: false, message, code, ...(details ? { details } : {}) } };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    return validationAnswer(error.validation, request);
  }
  if (isUnstorableText(error)) {
    return {
      status: 400,
      body: {
        success: false,
        message: request.routeOptions.config.invalidMessage ?? MESSAGES.invalidRequest,
        code: 'VALIDATION_ERROR',
        details: 'Text must not contain NUL characters.',
      },
    };
  }
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) {
    return {
      status: known.status,
      body: { success: false, message: known.message, code: known.code },
    };
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return {
      status: 400,
      body: { success: false, message: MESSAGES.malformedJson, code: 'INVALID_JSON' },
    };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500 && !isResponseSerializationError(error)) {
    const message = error.message || MESSAGES.invalidRequest;
    return { status, body: { success: false, message, code: error.code ?? 'BAD_REQUEST' } };
  }
  return null;
}

/**
 * The one error handler: every failure leaves as the envelope with the right status. Client
 * mistakes say what was wrong; anything unexpected is logged and answered with a generic 500,
 * never a stack trace.
 */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError && error.headers) reply.headers(error.headers);
    const answer = explainedAnswer(error, request);
    if (answer) return send(reply, answer.status, answer.body);
    request.log.error({ err: error }, 'request failed');
    return send(reply, 500, {
      success: false,
      message: MESSAGES.internalError,
      code: 'INTERNAL_ERROR',
    });
  });
});
