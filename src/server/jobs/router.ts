import { CronStatusSchema, JobRunSchema } from '../../shared/schemas/jobs';
import { adminProcedure, router } from '../trpc/init';
import { cronService } from './service';

export const cronRouter = router({
  status: adminProcedure.output(CronStatusSchema).query(({ ctx }) => cronService(ctx.req.server.jobs).status(ctx.actor)),
  run: adminProcedure.output(JobRunSchema).mutation(({ ctx }) => cronService(ctx.req.server.jobs).run(ctx.actor)),
});
