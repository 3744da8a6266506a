import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { M } from '../../shared/messages';
import { isAdmin } from '../../shared/roles';
import type { Actor } from '../deps';
import { conflict, forbidden } from '../lib/errors';
import { restRoute } from '../http/rest';
import { adminProcedure, router } from '../trpc/init';
import { requireUser } from '../modules/auth/service';
import type { JobRunner, JobRunRow } from './runner';

export const JobRunSchema = z.object({
  _id: z.string(),
  startedAt: z.date(),
  finishedAt: z.date().nullable(),
  status: z.enum(['running', 'succeeded', 'failed']),
  counts: z.record(z.string(), z.number()),
  error: z.string().nullable(),
});
export const CronStatusSchema = z.object({ running: z.boolean(), nextRunAt: z.date().nullable(), runs: z.array(JobRunSchema) });

const toDto = (r: JobRunRow) => ({ _id: r.id, startedAt: r.startedAt, finishedAt: r.finishedAt, status: r.status, counts: r.counts, error: r.error });

function requireAdmin(actor: Actor) {
  const { user } = requireUser(actor);
  if (!isAdmin(user)) throw forbidden(M.accessDenied);
}

/** The admin's view of the scheduled jobs, the same for both doors. */
export function cronService(jobs: JobRunner) {
  return {
    async status(actor: Actor) {
      requireAdmin(actor);
      const s = await jobs.status(20);
      return { running: s.running, nextRunAt: s.nextRunAt, runs: s.runs.map(toDto) };
    },
    async run(actor: Actor) {
      requireAdmin(actor);
      const run = await jobs.runNow();
      if (!run) throw conflict(M.cronRunInProgress);
      return toDto(run);
    },
  };
}

export const cronRouter = router({
  status: adminProcedure.output(CronStatusSchema).query(({ ctx }) => cronService(ctx.req.server.jobs).status(ctx.actor)),
  run: adminProcedure.output(JobRunSchema).mutation(({ ctx }) => cronService(ctx.req.server.jobs).run(ctx.actor)),
});

export function cronRest(app: FastifyInstance): void {
  const cron = cronService(app.jobs);
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/cron/status',
    summary: 'The scheduled jobs: running, next run, recent runs',
    tag: 'admin',
    auth: 'required',
    errors: { 403: 'Admins only' },
    response: CronStatusSchema,
    handler: ({ actor }) => cron.status(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/cron/run',
    summary: 'Run the scheduled jobs now',
    tag: 'admin',
    auth: 'required',
    errors: { 403: 'Admins only', 409: 'A run is already in progress' },
    response: JobRunSchema,
    handler: ({ actor }) => cron.run(actor),
  });
}
