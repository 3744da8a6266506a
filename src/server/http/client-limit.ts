import type { FastifyInstance, FastifyRequest } from 'fastify';
import { M } from '../../shared/messages';
import { AppError } from '../lib/errors';
import { isApiUrl } from './security';

/** What one client address has under way: requests being handled, and requests waiting their turn. */
interface AddressState {
  active: number;
  waiting: (() => void)[];
}

export interface ClientLimits {
  /** Requests of `address` being handled and waiting now (both 0 for an address with nothing under way). */
  underWay(address: string): { active: number; waiting: number };
  /** Addresses with something under way (none are kept once their requests are done). */
  readonly addresses: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    clientLimits: ClientLimits;
  }
}

/** Seconds a refused client is told to wait: the requests ahead of it are short. */
const RETRY_AFTER_S = 1;

/**
 * Uploads are left to their own queue (UPLOAD_CONCURRENCY, uploads/gate.ts): they last as long as
 * the client's upstream takes, and would hold a turn of their address all that time.
 */
function isUpload(req: FastifyRequest): boolean {
  if (req.url.startsWith('/api/upload/')) return true;
  return req.url.startsWith('/trpc/') && (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Fairness per client address (config.ts, CLIENT_LIMIT_DEFAULTS): of the requests under /api and
 * /trpc one address sends, at most `concurrency` are handled at once; up to `queue` more wait
 * their turn before anything of them is read past the headers (no body, no session lookup), and
 * one more is refused with 429 and Retry-After. A turn passes from a finished request straight
 * to the oldest waiting one of the same address, so other addresses are never behind it: one
 * address that sends many requests at once slows only itself.
 *
 * A request's turn ends when its answer is ready (the onSend hook: the server's work is done,
 * however slowly the client then reads it) or when its connection closes (the client went away;
 * a waiting request whose client left gives up its place). `concurrency` 0 turns the limit off.
 * The address is Fastify's `request.ip` (the client behind a trusted proxy with TRUST_PROXY=true).
 */
export function registerClientLimit(app: FastifyInstance, opts: { concurrency: number; queue: number }): void {
  const clients = new Map<string, AddressState>();
  /** How each counted request ends its turn or gives up its place (once; later calls do nothing). */
  const leaving = new WeakMap<FastifyRequest, () => void>();
  app.decorate('clientLimits', {
    underWay(address: string) {
      const c = clients.get(address);
      return { active: c?.active ?? 0, waiting: c?.waiting.length ?? 0 };
    },
    get addresses() {
      return clients.size;
    },
  } satisfies ClientLimits);
  if (opts.concurrency <= 0) return;

  app.addHook('onRequest', (req, reply, done) => {
    if (!isApiUrl(req.url) || isUpload(req)) return done();
    const address = req.ip;
    let state = clients.get(address);
    if (!state) {
      state = { active: 0, waiting: [] };
      clients.set(address, state);
    }
    const own = state;

    if (own.active >= opts.concurrency && own.waiting.length >= opts.queue) {
      return done(new AppError('TOO_MANY_REQUESTS', M.tooManyAtOnce, RETRY_AFTER_S));
    }

    let phase: 'waiting' | 'active' | 'done' = 'waiting';
    const start = () => {
      phase = 'active';
      done();
    };
    const leave = () => {
      if (phase === 'waiting') own.waiting.splice(own.waiting.indexOf(start), 1);
      else if (phase === 'active') {
        // the turn goes to the oldest waiting request of this address; `active` stays the same
        const next = own.waiting.shift();
        if (next) next();
        else own.active--;
      }
      phase = 'done';
      if (own.active === 0 && own.waiting.length === 0 && clients.get(address) === own) clients.delete(address);
    };
    leaving.set(req, leave);
    reply.raw.once('close', leave);

    if (own.active < opts.concurrency) {
      own.active++;
      start();
    } else own.waiting.push(start);
  });

  // the answer is ready: the turn passes on while the client reads it
  app.addHook('onSend', (req, _reply, payload, done) => {
    leaving.get(req)?.();
    done(null, payload);
  });
}
