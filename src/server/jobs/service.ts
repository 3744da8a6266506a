import { M } from '../../shared/messages';
import type { CronStatusDto, JobRunDto } from '../../shared/schemas/jobs';
import type { Actor } from '../deps';
import { conflict } from '../lib/errors';
import { requireAdmin } from '../modules/auth/service';
import type { JobRunner, JobRunRow } from './runner';

const toDto = (r: JobRunRow): JobRunDto => ({
  _id: r.id,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
  status: r.status,
  counts: r.counts,
  error: r.error,
});

/** The admin's view of the scheduled jobs, the same for both doors. */
export function cronService(jobs: JobRunner) {
  return {
    async status(actor: Actor): Promise<CronStatusDto> {
      requireAdmin(actor);
      const s = await jobs.status(20);
      return { running: s.running, nextRunAt: s.nextRunAt, runs: s.runs.map(toDto) };
    },
    async run(actor: Actor): Promise<JobRunDto> {
      requireAdmin(actor);
      const run = await jobs.runNow();
      if (!run) throw conflict(M.cronRunInProgress);
      return toDto(run);
    },
  };
}
