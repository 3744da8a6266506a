import type { FastifyBaseLogger } from 'fastify';

/**
 * Work that must not run on the request path: it starts after the current call has been
 * answered (setImmediate), a few at a time, and a failure is logged, never thrown at a caller.
 * `forgot-password` uses it so that its answer takes the same time whether or not the account
 * exists. `settle()` resolves once everything queued so far has finished (app.close() waits for
 * it before the mailer drains; tests wait for it instead of for a time).
 */
export interface AfterAnswer {
  run(name: string, task: () => Promise<void>): void;
  settle(): Promise<void>;
}

export function createAfterAnswer(log: FastifyBaseLogger, opts: { concurrency?: number; maxQueued?: number } = {}): AfterAnswer {
  const concurrency = opts.concurrency ?? 4;
  // a flood of requests must not grow memory without bound: beyond this the work is dropped (and logged)
  const maxQueued = opts.maxQueued ?? 1000;
  const queue: { name: string; task: () => Promise<void> }[] = [];
  let running = 0;
  let scheduled = false;
  let idleWaiters: (() => void)[] = [];

  function checkIdle() {
    if (queue.length || running || scheduled) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  function pump() {
    scheduled = false;
    while (running < concurrency && queue.length) {
      const { name, task } = queue.shift()!;
      running += 1;
      Promise.resolve()
        .then(task)
        .catch((err: unknown) => log.error({ err, task: name }, 'work after the answer failed'))
        .finally(() => {
          running -= 1;
          pump();
        });
    }
    checkIdle();
  }

  return {
    run(name, task) {
      if (queue.length >= maxQueued) {
        log.warn({ task: name }, 'too much work queued after answers: dropped');
        return;
      }
      queue.push({ name, task });
      if (!scheduled) {
        scheduled = true;
        setImmediate(pump);
      }
    },
    settle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      });
    },
  };
}
