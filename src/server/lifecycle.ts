import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** How long /readyz answers 503 while requests are still served, before the server stops accepting (config.shutdownDrainMs). */
  drainMs: number;
  /** How long the rest may take (requests in flight, the jobs, the database) before the process exits anyway, with code 1 (config.shutdownTimeoutMs). */
  timeoutMs: number;
  /** Closes what the app does not own (the database main.ts opened), after the app closed. */
  closeDatabase: () => Promise<void>;
  /** Ends the process (process.exit; a test passes its own). */
  exit?: (code: number) => void;
}

/**
 * The way out on SIGTERM (issue #31), in this order:
 *
 * 1. Draining: /readyz answers 503 at once and every answer carries `Connection: close`
 *    (http/health.ts); requests are still served for `drainMs`, the time a balancer takes to
 *    see the 503 and stop sending here. A request sent meanwhile is answered, not refused.
 * 2. `app.close()`: the server stops accepting connections and closes the idle kept-alive ones
 *    (Node's server.close), and waits for the requests in flight, each answered in full (a
 *    request that arrives on a connection still open is served too, with `Connection: close`:
 *    app.ts sets Fastify's return503OnClosing to false, as a 503 for a request already accepted
 *    would be an error the client sees). Then the app's onClose hooks stop the jobs (a run under
 *    way finishes), send the email still owed and close the read replica's pool.
 * 3. The database pool closes, and the process exits with code 0.
 *
 * Steps 2 and 3 get `timeoutMs` together; past it the process says what it was still waiting
 * for and exits with code 1. A second SIGINT exits at once (code 1): a person pressing Ctrl-C
 * twice does not wait; a repeated SIGTERM changes nothing.
 *
 * Returns the function to call with the signal's name.
 */
export function createShutdown(app: FastifyInstance, opts: ShutdownOptions): (signal: string) => Promise<void> {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let started = false;
  return async (signal) => {
    if (started) {
      // the first one is being acted on; only a person's second Ctrl-C cuts it short
      if (signal !== 'SIGINT') return;
      app.log.warn('SIGINT received again during the shutdown: exiting now');
      exit(1);
      return;
    }
    started = true;
    app.readiness.drain();
    app.log.info(`${signal} received: draining (/readyz answers 503; requests are served for ${opts.drainMs / 1000} s more)`);
    if (opts.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.drainMs));

    let waitingFor = 'the requests in flight';
    app.server.once('close', () => {
      waitingFor = 'the jobs and the database';
    });
    const force = setTimeout(() => {
      app.log.error(`shutdown did not finish within ${opts.timeoutMs / 1000} s (still waiting for ${waitingFor}): exiting`);
      exit(1);
    }, opts.timeoutMs);
    force.unref();
    app.log.info('drain over: no new connections; finishing the requests in flight');
    try {
      await app.close();
      await opts.closeDatabase();
    } catch (err) {
      clearTimeout(force);
      app.log.error({ err }, 'error during shutdown');
      exit(1);
      return;
    }
    clearTimeout(force);
    app.log.info('shut down cleanly');
    exit(0);
  };
}

/** SIGTERM and SIGINT start the shutdown (createShutdown); main.ts calls this once the app is built. */
export function shutdownOnSignals(app: FastifyInstance, opts: ShutdownOptions): void {
  const shutdown = createShutdown(app, opts);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
}
