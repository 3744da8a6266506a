import { initTRPC, TRPCError } from '@trpc/server';
import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import superjson from 'superjson';
import { z } from 'zod';
import { M } from '../../shared/messages';
import { isAdmin } from '../../shared/roles';
import type { Deps } from '../deps';
import { AppError } from '../lib/errors';
import { zodMessage } from '../http/errors';
import type { Services } from '../services';

export function makeCreateContext(deps: Deps, services: Services) {
  return ({ req, res }: CreateFastifyContextOptions) => ({ actor: req.actor, deps, services, req, res });
}
export type Context = ReturnType<ReturnType<typeof makeCreateContext>>;

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  isDev: false,
  errorFormatter({ shape, error }) {
    // input errors read as the schema's own message; server failures never show internals
    const zod = error.cause instanceof z.ZodError ? error.cause : null;
    const message = zod ? zodMessage(zod) : error.code === 'INTERNAL_SERVER_ERROR' ? M.internalError : shape.message;
    return { ...shape, message, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path } };
  },
});

/** Service errors become tRPC errors with the same code (and so the same HTTP status). */
const mapErrors = t.middleware(async ({ next, ctx }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) {
      if (cause.retryAfter) ctx.res.header('retry-after', String(cause.retryAfter));
      throw new TRPCError({ code: cause.code, message: cause.message, cause });
    }
    if (cause instanceof z.ZodError && result.error.code === 'INTERNAL_SERVER_ERROR') {
      throw new TRPCError({ code: 'BAD_REQUEST', message: zodMessage(cause), cause });
    }
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor.user || !ctx.actor.session) throw new TRPCError({ code: 'UNAUTHORIZED', message: M.signInRequired });
  return next({ ctx: { ...ctx, actor: { ...ctx.actor, user: ctx.actor.user, session: ctx.actor.session } } });
});

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (!isAdmin(ctx.actor.user)) throw new TRPCError({ code: 'FORBIDDEN', message: M.accessDenied });
  return next();
});
