import { M } from '../../../shared/messages';
import { AppError } from '../../lib/errors';

export interface Gate {
  /** Waits for a turn; the returned function ends it (call it once, in a finally). */
  enter(): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
}

/**
 * At most `concurrency` uploads are read and processed at once in this process; the others wait
 * their turn without reading their body (the client's socket waits too), so memory is bounded by
 * `concurrency` x the largest upload, however many arrive together. Past `maxWaiting` queued
 * uploads the answer is 429 with Retry-After.
 */
export function createGate(concurrency: number, maxWaiting: number): Gate {
  let active = 0;
  const queue: (() => void)[] = [];
  const leave = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  return {
    async enter() {
      if (active < concurrency) active++;
      else {
        if (queue.length >= maxWaiting) throw new AppError('TOO_MANY_REQUESTS', M.uploadsBusy, 5);
        // the turn passes straight from the leaving upload to this one: `active` stays the same
        await new Promise<void>((resolve) => queue.push(resolve));
      }
      let left = false;
      return () => {
        if (left) return;
        left = true;
        leave();
      };
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
