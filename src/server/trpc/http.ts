import type { AnyProcedure } from '@trpc/server';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import {
  getErrorShape,
  getHTTPStatusCode,
  getProcedureAtPath,
  getTRPCErrorFromUnknown,
  middlewareMarker,
  transformTRPCResponse,
  TRPCError,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { responseJsonSchema } from '../http/response-schema';
import { datePathsOf, writeAnswer } from './answer';
import type { AppRouter } from './router';

/**
 * The tRPC door (`/trpc/:path`). Queries sent by GET with JSON input, one or a batch (what the
 * app's `httpBatchLink` sends for every read), are answered here directly from Fastify's request:
 * no fetch `Request`/`Response` in between, the procedures' own middlewares (context, sign-in
 * checks, error mapping, input validation with the shared schemas) run as tRPC runs them, and
 * each declared answer is written as the REST door writes it (fast-json-stringify from the zod
 * schema: only declared fields leave) in superjson's wire format with its dates listed (see
 * answer.ts). Everything else (mutations, uploads, unknown paths, malformed input, streaming)
 * goes to tRPC's own Fastify handler unchanged, which also gives those their errors.
 */

type Options = FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];
type Middleware = ((opts: Record<string, unknown>) => Promise<unknown>) & { _type?: string };
type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };
interface ProcDef {
  type: 'query' | 'mutation' | 'subscription';
  meta?: unknown;
  middlewares: Middleware[];
  output?: unknown;
}

/** How one procedure is called and its answer written. */
interface Plan {
  middlewares: Middleware[];
  write(data: unknown): string;
}

/** The request info's signal: procedures here do not watch for the client going away. */
const NEVER_ABORTED = new AbortController().signal;

const isPlainRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** tRPC's middleware chain (callRecursive in @trpc/server), over a chosen list of middlewares. */
async function callChain(def: ProcDef, middlewares: Middleware[], index: number, opts: Record<string, unknown>): Promise<MiddlewareResult> {
  try {
    const middleware = middlewares[index]!;
    return (await middleware({
      ...opts,
      meta: def.meta,
      input: opts.input,
      next(nextOpts?: { ctx?: object; input?: unknown; getRawInput?: unknown }) {
        return callChain(def, middlewares, index + 1, {
          ...opts,
          ctx: nextOpts?.ctx ? { ...(opts.ctx as object), ...nextOpts.ctx } : opts.ctx,
          input: nextOpts && 'input' in nextOpts ? nextOpts.input : opts.input,
          getRawInput: nextOpts?.getRawInput ?? opts.getRawInput,
        });
      },
    })) as MiddlewareResult;
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker } as MiddlewareResult;
  }
}

export async function trpcPlugin(fastify: FastifyInstance, opts: { trpcOptions: Options }) {
  const { trpcOptions } = opts;
  const router = trpcOptions.router;
  const config = router._def._config;
  const plans = new WeakMap<AnyProcedure, Plan>();

  // as tRPC's plugin does: it reads the bodies itself
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  fastify.removeContentTypeParser('multipart/form-data');
  fastify.addContentTypeParser('multipart/form-data', {}, (_req, body, done) => done(null, body));

  const planOf = (procedure: AnyProcedure, reply: FastifyReply): Plan => {
    let plan = plans.get(procedure);
    if (plan) return plan;
    const def = procedure._def as unknown as ProcDef;
    const slow: Plan = {
      middlewares: def.middlewares,
      write: (data) => JSON.stringify(config.transformer.output.serialize(data)),
    };
    plan = slow;
    const output = def.output as z.ZodType | undefined;
    const dates = output && typeof output === 'object' && '_zod' in output ? datePathsOf(output) : null;
    if (output && dates) {
      try {
        const stringify = reply.compileSerializationSchema(responseJsonSchema(output)) as (data: unknown) => string;
        // the declared schema writes the answer, and only what it declares: zod's parse of the
        // answer (the output middleware) is not needed for that
        plan = { middlewares: def.middlewares.filter((m) => m._type !== 'output'), write: (data) => writeAnswer(data, stringify, dates) };
      } catch {
        plan = slow;
      }
    }
    plans.set(procedure, plan);
    return plan;
  };

  const official = (req: FastifyRequest, reply: FastifyReply, path: string) => fastifyRequestHandler({ ...trpcOptions, req, res: reply, path });

  fastify.all<{ Params: { path: string }; Querystring: Record<string, unknown> }>('/:path', async (req, reply) => {
    const rawPath = req.params.path;
    if (req.method !== 'GET' || req.headers['trpc-accept'] !== undefined) return official(req, reply, rawPath);
    const { batch, input } = req.query;
    if ((batch !== undefined && typeof batch !== 'string') || (input !== undefined && typeof input !== 'string')) return official(req, reply, rawPath);
    const isBatch = batch === '1';

    // anything tRPC would refuse is left to tRPC, so that it answers with its own error
    let paths: string[];
    let inputs: unknown;
    try {
      const path = decodeURIComponent(rawPath);
      paths = isBatch ? path.split(',') : [path];
      inputs = input ? JSON.parse(input) : undefined;
    } catch {
      return official(req, reply, rawPath);
    }
    if (isBatch && typeof trpcOptions.maxBatchSize === 'number' && paths.length > trpcOptions.maxBatchSize) return official(req, reply, rawPath);
    if (isBatch && inputs !== undefined && !isPlainRecord(inputs)) return official(req, reply, rawPath);
    const rawInputs = paths.map((_, i): unknown => (inputs === undefined ? undefined : isBatch ? (inputs as Record<string, unknown>)[i] : inputs));
    const procedures: AnyProcedure[] = [];
    for (const path of paths) {
      const procedure = await getProcedureAtPath(router, path);
      if (procedure?._def.type !== 'query') return official(req, reply, rawPath);
      procedures.push(procedure);
    }

    const calls = paths.map((path, batchIndex) => {
      let deserialized: { value: unknown } | undefined;
      const getRawInput = async () => {
        if (!deserialized) {
          const raw = rawInputs[batchIndex];
          deserialized = { value: raw === undefined ? undefined : config.transformer.input.deserialize(raw) };
        }
        return deserialized.value;
      };
      return { path, batchIndex, getRawInput, result: () => deserialized?.value, procedure: procedures[batchIndex]! };
    });
    const info = { accept: null, type: 'query' as const, isBatchCall: isBatch, calls, connectionParams: null, signal: NEVER_ABORTED, url: null };
    let ctx: unknown;
    try {
      ctx = await trpcOptions.createContext?.({ req, res: reply, info } as Parameters<NonNullable<Options['createContext']>>[0]);
    } catch {
      return official(req, reply, rawPath);
    }

    const results = await Promise.all(
      calls.map(async (call, i): Promise<{ body: string } | { error: TRPCError }> => {
        const procedure = procedures[i]!;
        const plan = planOf(procedure, reply);
        const def = procedure._def as unknown as ProcDef;
        try {
          const result = await callChain(def, plan.middlewares, 0, {
            path: call.path,
            getRawInput: call.getRawInput,
            ctx,
            type: 'query',
            signal: undefined,
            batchIndex: call.batchIndex,
          });
          if (!result) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares' });
          if (!result.ok) throw result.error;
          return { body: `{"result":{"data":${plan.write(result.data)}}}` };
        } catch (cause) {
          const error = getTRPCErrorFromUnknown(cause);
          trpcOptions.onError?.({ error, path: call.path, input: call.result(), ctx: ctx as never, type: 'query', req });
          return { error };
        }
      }),
    );

    const untransformed = results.map((r, i) =>
      'error' in r
        ? { error: getErrorShape({ config, error: r.error, type: 'query', path: calls[i]!.path, input: calls[i]!.result(), ctx: ctx as never }) }
        : { result: {} },
    );
    const items = results.map((r, i) => ('body' in r ? r.body : JSON.stringify(transformTRPCResponse(config, untransformed[i] as never))));
    reply
      .code(getHTTPStatusCode(untransformed as never))
      .header('vary', 'trpc-accept, accept')
      .header('content-type', 'application/json')
      .send(isBatch ? `[${items.join(',')}]` : items[0]);
    return reply;
  });
}
