import type { FastifyInstance, FastifyRequest } from 'fastify';
import { M } from '../../shared/messages';
import { AppError } from '../lib/errors';
import { apiDoorOf, isApiUrl } from './security';

/** What one client address has under way: requests being handled, waiting their turn, and waiting for its budget. */
interface AddressState {
  active: number;
  waiting: (() => void)[];
  /** Requests held back by the address's budget over time (CLIENT_RATE), not yet in line for a turn. */
  sleeping: number;
}

export interface ClientLimits {
  /** Requests of `address` being handled and waiting now (both 0 for an address with nothing under way). */
  underWay(address: string): { active: number; waiting: number };
  /** Addresses with something under way (none are kept once their requests are done). */
  readonly addresses: number;
}

/** The time the limit goes by: the real one, or a test's own. */
export interface LimitClock {
  /** Milliseconds, only ever compared with each other. */
  now(): number;
  /** Runs `fn` after `ms` milliseconds; the function returned cancels it. */
  after(ms: number, fn: () => void): () => void;
}

const realClock: LimitClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

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
  if (req.routeOptions.url?.startsWith('/api/upload/')) return true;
  return apiDoorOf(req.url) === 'trpc' && (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Fairness per client address (config.ts, CLIENT_LIMIT_DEFAULTS): of the requests under /api and
 * /trpc one address sends, at most `concurrency` are handled at once, and on average at most
 * `rate` a second (`burst` at once after a quiet spell: the budget is the generic cell rate
 * algorithm, a token bucket kept as one time per address). A request past either waits before
 * anything of it is read past the headers (no body, no session lookup): for the budget until its
 * time comes, then for a turn. Up to `queue` requests of an address may wait; one more that would
 * have to wait is refused with 429 and Retry-After (the seconds until the budget has room again,
 * at least 1). A turn passes from a finished request straight to the oldest waiting one of the
 * same address, so other addresses are never behind it: one address that sends many requests at
 * once, or one after another without pause, slows only itself.
 *
 * A request's turn ends when its answer is ready (the onSend hook: the server's work is done,
 * however slowly the client then reads it) or when its connection closes (the client went away;
 * a waiting request whose client left gives up its place). `concurrency` 0 and `rate` 0 turn
 * each part off. The address is Fastify's `request.ip` (the client behind a trusted proxy with
 * TRUST_PROXY=true).
 */
export function registerClientLimit(app: FastifyInstance, opts: { concurrency: number; queue: number; rate: number; burst: number; clock?: LimitClock }): void {
  const clock = opts.clock ?? realClock;
  const clients = new Map<string, AddressState>();
  /**
   * Per address, the time its budget is spent up to (the cell rate algorithm's theoretical
   * arrival time): a request may start once now >= that time - (burst - 1) intervals. An address
   * whose time has passed has its whole burst again, so it is dropped (swept every SWEEP_EVERY
   * requests): the map holds only addresses that asked for more than their rate lately.
   */
  const spent = new Map<string, number>();
  const interval = opts.rate > 0 ? 1000 / opts.rate : 0;
  const tolerance = (opts.burst - 1) * interval;
  const SWEEP_EVERY = 1000;
  let sinceSweep = 0;
  /** How many milliseconds a request of `address` arriving now must wait for the budget, and the budget's time once it is taken. */
  const budget = (address: string, now: number): { delay: number; next: number } => {
    if (interval === 0) return { delay: 0, next: now };
    const time = Math.max(spent.get(address) ?? now, now);
    return { delay: Math.max(0, time - tolerance - now), next: time + interval };
  };

  /** How each counted request ends its turn or gives up its place (once; later calls do nothing). */
  const leaving = new WeakMap<FastifyRequest, () => void>();
  app.decorate('clientLimits', {
    underWay(address: string) {
      const c = clients.get(address);
      return { active: c?.active ?? 0, waiting: (c?.waiting.length ?? 0) + (c?.sleeping ?? 0) };
    },
    get addresses() {
      return clients.size;
    },
  } satisfies ClientLimits);
  if (opts.concurrency <= 0 && opts.rate <= 0) return;

  app.addHook('onRequest', (req, reply, done) => {
    if (!isApiUrl(req.url) || isUpload(req)) return done();
    const address = req.ip;
    const now = clock.now();
    if (interval > 0 && ++sinceSweep >= SWEEP_EVERY) {
      sinceSweep = 0;
      for (const [a, t] of spent) if (t <= now) spent.delete(a);
    }
    let state = clients.get(address);
    if (!state) {
      state = { active: 0, waiting: [], sleeping: 0 };
      clients.set(address, state);
    }
    const own = state;
    const { delay, next } = budget(address, now);
    const mustWait = delay > 0 || (opts.concurrency > 0 && own.active >= opts.concurrency);
    if (mustWait && own.waiting.length + own.sleeping >= opts.queue) {
      if (own.active === 0 && own.waiting.length === 0 && own.sleeping === 0) clients.delete(address);
      return done(new AppError('TOO_MANY_REQUESTS', M.tooManyAtOnce, Math.max(RETRY_AFTER_S, Math.ceil(delay / 1000))));
    }
    if (interval > 0) spent.set(address, next);

    let phase: 'sleeping' | 'waiting' | 'active' | 'done' = 'sleeping';
    let cancelSleep: (() => void) | undefined;
    const start = () => {
      phase = 'active';
      done();
    };
    /** The budget allows it: a turn now, or in line for the next one. */
    const line = () => {
      if (opts.concurrency <= 0 || own.active < opts.concurrency) {
        own.active++;
        start();
      } else {
        phase = 'waiting';
        own.waiting.push(start);
      }
    };
    const leave = () => {
      if (phase === 'sleeping') {
        cancelSleep?.();
        own.sleeping--;
      } else if (phase === 'waiting') own.waiting.splice(own.waiting.indexOf(start), 1);
      else if (phase === 'active') {
        // the turn goes to the oldest waiting request of this address; `active` stays the same
        const following = own.waiting.shift();
        if (following) following();
        else own.active--;
      }
      phase = 'done';
      if (own.active === 0 && own.waiting.length === 0 && own.sleeping === 0 && clients.get(address) === own) clients.delete(address);
    };
    leaving.set(req, leave);
    reply.raw.once('close', leave);

    if (delay > 0) {
      own.sleeping++;
      cancelSleep = clock.after(delay, () => {
        own.sleeping--;
        line();
      });
    } else line();
  });

  // the answer is ready: the turn passes on while the client reads it
  app.addHook('onSend', (req, _reply, payload, done) => {
    leaving.get(req)?.();
    done(null, payload);
  });
}
