import type { FastifyInstance } from 'fastify';
import { CronStatusSchema, JobRunSchema } from '../../shared/schemas/jobs';
import { restRoute } from '../http/rest';
import { cronService } from './service';

export function cronRest(app: FastifyInstance): void {
  const cron = cronService(app.jobs);
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/cron/status',
    summary: 'The scheduled jobs: running, next run, recent runs',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    response: CronStatusSchema,
    handler: ({ actor }) => cron.status(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/cron/run',
    summary: 'Run the scheduled jobs now',
    tag: 'admin',
    auth: 'admin',
    errors: { 409: 'A run is already in progress' },
    response: JobRunSchema,
    handler: ({ actor }) => cron.run(actor),
  });
}
