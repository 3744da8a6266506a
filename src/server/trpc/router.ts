import { authRouter } from '../modules/auth/router';
import { blocksRouter } from '../modules/blocks/router';
import { campaignsRouter } from '../modules/campaigns/router';
import { commentsRouter } from '../modules/comments/router';
import { disputesRouter } from '../modules/disputes/router';
import { donationsRouter } from '../modules/donations/router';
import { favoritesRouter } from '../modules/favorites/router';
import { payoutsRouter } from '../modules/payouts/router';
import { statsRouter } from '../modules/stats/router';
import { adminRouter } from '../modules/admin/router';
import { projectsRouter } from '../modules/projects/router';
import { supportsRouter } from '../modules/supports/router';
import { tagsRouter } from '../modules/tags/router';
import { teamsRouter } from '../modules/teams/router';
import { previewsRouter } from '../modules/previews/router';
import { updatesRouter } from '../modules/updates/router';
import { uploadsRouter } from '../modules/uploads/router';
import { usersRouter } from '../modules/users/router';
import { cronRouter } from '../jobs/router';
import { router } from './init';

export const appRouter = router({
  auth: authRouter,
  uploads: uploadsRouter,
  campaigns: campaignsRouter,
  comments: commentsRouter,
  donations: donationsRouter,
  favorites: favoritesRouter,
  blocks: blocksRouter,
  payouts: payoutsRouter,
  stats: statsRouter,
  admin: adminRouter,
  cron: cronRouter,
  disputes: disputesRouter,
  projects: projectsRouter,
  supports: supportsRouter,
  tags: tagsRouter,
  teams: teamsRouter,
  previews: previewsRouter,
  updates: updatesRouter,
  users: usersRouter,
});
export type AppRouter = typeof appRouter;
