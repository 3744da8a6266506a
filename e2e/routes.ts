import { appRouteNames, matchAppRoute, type AppRouteName } from '../src/shared/routes';

/** The ids of the objects the page routes open (a person's campaign, project, team, a donation to the campaign, and the person). */
export interface RouteIds {
  campaign: string;
  project: string;
  team: string;
  donation: string;
  owner: string;
}

/** The admin's own screens: the tabs of /admin and the cron page. */
export const ADMIN_ROUTES = ['/admin', '/admin?tab=disputes', '/admin?tab=payments', '/admin?tab=tokens', '/admin?tab=users', '/admin?tab=cron', '/admin/cron'];

/**
 * Every route of the app (src/shared/routes.ts) and each tab of the tabbed pages, with real ids
 * filled in, and one path no route matches: what the page-by-page checks (axe, the width checks)
 * visit. everyRouteCovered() keeps it whole when a route is added.
 */
export function everyRoute(ids: RouteIds): string[] {
  return [
    '/',
    '/login',
    '/register',
    '/forgot',
    '/reset/not-a-real-token',
    '/verify-email',
    '/verify-phone',
    '/verify-join',
    '/account',
    '/favorites',
    '/favorites?tab=project',
    '/favorites?tab=profile',
    '/my',
    '/my?tab=projects',
    '/my?tab=teams',
    '/my?tab=supported',
    '/myCampaigns',
    '/myProjects',
    '/myDisputes',
    `/disputes/new?campaignId=${ids.campaign}`,
    '/messages',
    '/blocked',
    '/campaigns',
    '/campaigns/new',
    `/campaigns/${ids.campaign}`,
    `/campaigns/${ids.campaign}/edit`,
    `/campaigns/${ids.campaign}/dashboard`,
    `/donations/${ids.donation}`,
    '/projects',
    '/projects/new',
    `/projects/${ids.project}/edit`,
    `/projects/${ids.project}`,
    '/teams',
    '/teams/new',
    `/teams/${ids.team}/manage`,
    `/teams/${ids.team}`,
    '/profiles',
    `/profiles/${ids.owner}`,
    `/profiles/${ids.owner}?tab=projects`,
    `/profiles/${ids.owner}?tab=teams`,
    '/about',
    '/how-it-works',
    '/fees',
    '/trust',
    '/terms',
    '/privacy',
    ...ADMIN_ROUTES,
    '/no/such/page',
  ];
}

/** The app's routes that none of `paths` opens (none, for a check that covers them all). */
export function routesNotVisited(paths: string[]): AppRouteName[] {
  const covered = new Set(paths.map((p) => matchAppRoute(new URL(p, 'http://x').pathname)));
  return appRouteNames.filter((name) => !covered.has(name));
}
