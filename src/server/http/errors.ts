import type { FastifyError, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { M } from '../../shared/messages';
import { AppError } from '../lib/errors';

/** The first issue of a zod error, as a sentence a person can act on. */
export function zodMessage(err: z.ZodError): string {
  const issue = err.issues[0];
  if (!issue) return M.invalidInput;
  // these two name the field they are about: "title cannot contain the NUL character (U+0000)"
  if (issue.message === M.textNul || issue.message === M.dateOutOfRange) {
    const field = issue.path.filter((p) => typeof p === 'string').join('.');
    return `${field || (issue.message === M.textNul ? 'Text' : 'Date')} ${issue.message}`;
  }
  // zod's own wording for a missing field is "Invalid input: expected string, received undefined"
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    const field = issue.path.join('.');
    return field ? `${field} is required` : M.invalidInput;
  }
  return issue.message;
}

export function zodToAppError(err: z.ZodError): AppError {
  return new AppError('BAD_REQUEST', zodMessage(err));
}

/** One error answer for the REST door: `{ error }` with the status; 5xx never shows internals. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | z.ZodError, req, reply) => {
    if (error instanceof z.ZodError) {
      return reply.code(400).send({ error: zodMessage(error) });
    }
    if (error instanceof AppError) {
      if (error.retryAfter) reply.header('retry-after', String(error.retryAfter));
      return reply.code(error.status).send({ error: error.message });
    }
    const status = (error as FastifyError).statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = (error as FastifyError).code;
      const message =
        code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'Request body is too large'
          : code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Unsupported content type'
            : code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY'
              ? 'Request body is not valid JSON'
              : error.message;
      return reply.code(status).send({ error: message });
    }
    req.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: M.internalError });
  });
}
