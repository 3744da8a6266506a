import type { Deps } from './deps';
import { createAuthService } from './modules/auth/service';
import { createCampaignsService } from './modules/campaigns/service';
import { createProjectsService } from './modules/projects/service';
import { createTagsService } from './modules/tags/service';
import { createUsersService } from './modules/users/service';
import { createUploadsService } from './modules/uploads/service';

/** Every domain service, built once per app over the same dependencies. */
export function createServices(deps: Deps) {
  return {
    auth: createAuthService(deps),
    campaigns: createCampaignsService(deps),
    projects: createProjectsService(deps),
    tags: createTagsService(deps),
    users: createUsersService(deps),
    uploads: createUploadsService(deps),
  };
}
export type Services = ReturnType<typeof createServices>;
