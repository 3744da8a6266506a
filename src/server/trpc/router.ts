import { authRouter } from '../modules/auth/router';
import { campaignsRouter } from '../modules/campaigns/router';
import { projectsRouter } from '../modules/projects/router';
import { tagsRouter } from '../modules/tags/router';
import { uploadsRouter } from '../modules/uploads/router';
import { usersRouter } from '../modules/users/router';
import { router } from './init';

export const appRouter = router({
  auth: authRouter,
  uploads: uploadsRouter,
  campaigns: campaignsRouter,
  projects: projectsRouter,
  tags: tagsRouter,
  users: usersRouter,
});
export type AppRouter = typeof appRouter;
