import { z } from './zod';

/** One run of the scheduled jobs (job_runs), as the admin's Subscription Cron panel shows it. */
export const JobRunSchema = z.object({
  _id: z.string(),
  startedAt: z.date(),
  finishedAt: z.date().nullable(),
  status: z.enum(['running', 'succeeded', 'failed']),
  counts: z.record(z.string(), z.number()),
  error: z.string().nullable(),
});
export type JobRunDto = z.infer<typeof JobRunSchema>;

/** Whether a run is under way (in any process), when the next is due here, and the last runs. */
export const CronStatusSchema = z.object({ running: z.boolean(), nextRunAt: z.date().nullable(), runs: z.array(JobRunSchema) });
export type CronStatusDto = z.infer<typeof CronStatusSchema>;
