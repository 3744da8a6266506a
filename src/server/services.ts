import type { Deps } from './deps';
import { createAuthService } from './modules/auth/service';
import { createBlocksService } from './modules/blocks/service';
import { createCommentsService } from './modules/comments/service';
import { createDisputesService } from './modules/disputes/service';
import { createDonationsService } from './modules/donations/service';
import { createPayoutsService } from './modules/payouts/service';
import { createStatsService } from './modules/stats/service';
import { createAdminService } from './modules/admin/service';
import { createFavoritesService } from './modules/favorites/service';
import { createCampaignsService } from './modules/campaigns/service';
import { createProjectsService } from './modules/projects/service';
import { createSupportsService } from './modules/supports/service';
import { createTagsService } from './modules/tags/service';
import { createTeamsService } from './modules/teams/service';
import { createUsersService } from './modules/users/service';
import { createUploadsService } from './modules/uploads/service';
import { createPreviewsService } from './modules/previews/service';
import { createUpdatesService } from './modules/updates/service';

/** Every domain service, built once per app over the same dependencies. */
export function createServices(deps: Deps) {
  const campaigns = createCampaignsService(deps);
  const projects = createProjectsService(deps);
  const payouts = createPayoutsService(deps);
  return {
    auth: createAuthService(deps),
    campaigns,
    projects,
    favorites: createFavoritesService(deps, { campaigns, projects }),
    comments: createCommentsService(deps, { campaigns }),
    donations: createDonationsService(deps, { provider: deps.payments, receiptKey: deps.receiptKey, campaigns }),
    supports: createSupportsService(deps),
    payouts,
    stats: createStatsService(deps, { payouts }),
    admin: createAdminService(deps),
    disputes: createDisputesService(deps),
    blocks: createBlocksService(deps),
    tags: createTagsService(deps),
    teams: createTeamsService(deps),
    users: createUsersService(deps),
    uploads: createUploadsService(deps),
    previews: createPreviewsService(deps),
    updates: createUpdatesService(deps),
  };
}
export type Services = ReturnType<typeof createServices>;
