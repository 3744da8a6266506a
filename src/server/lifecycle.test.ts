import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, openTestDatabase } from '../../test/helpers';
import { createShutdown } from './lifecycle';

// The shutdown's steps on an app of this process (drain.heavy.test.ts runs it as its own process
// under load): what it asks of the app and the database, and how it ends. The process's exit is
// the test's own function here, so the test runner goes on.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

it('drains, closes the app (the jobs stop), then the database, and exits 0; a repeated SIGTERM changes nothing, a second SIGINT exits 1 at once', async () => {
  const app = await buildTestApp(database);
  const steps: string[] = [];
  // the app's close stops the jobs (app.ts onClose): seen here as the jobs' stop being asked for
  const stopJobs = app.jobs.stop.bind(app.jobs);
  app.jobs.stop = async () => {
    steps.push('jobs stopped');
    await stopJobs();
  };
  const exits: number[] = [];
  const shutdown = createShutdown(app, {
    drainMs: 0,
    timeoutMs: 60_000,
    closeDatabase: async () => void steps.push('database closed'),
    exit: (code) => void exits.push(code),
  });
  const first = shutdown('SIGTERM');
  expect(app.readiness.draining).toBe(true);
  await shutdown('SIGTERM');
  expect(exits).toEqual([]);
  await shutdown('SIGINT');
  expect(exits).toEqual([1]);
  await first;
  expect(steps).toEqual(['jobs stopped', 'database closed']);
  expect(exits).toEqual([1, 0]);
});

it('a failure while closing exits 1', async () => {
  const app = await buildTestApp(database);
  const exits: number[] = [];
  const shutdown = createShutdown(app, {
    drainMs: 0,
    timeoutMs: 60_000,
    closeDatabase: () => Promise.reject(new Error('the pool would not close')),
    exit: (code) => void exits.push(code),
  });
  await shutdown('SIGTERM');
  expect(exits).toEqual([1]);
});
