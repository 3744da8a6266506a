/**
 * The app's pages (spec section 2), in one list: the client's router builds its routes from it
 * (src/client/App.tsx) and the server answers 404 for a path none of them can match
 * (src/server/http/client-app.ts). `page` is the page module under src/client/pages/, without
 * `.tsx`: the router loads it when the route is first shown, and the server preloads it
 * (`<link rel="modulepreload">`) on the HTML of that route so the first paint waits for one
 * fewer round trip.
 */
export const appRoutes = {
  home: { path: '/', page: 'home/HomePage' },

  login: { path: '/login', page: 'auth/LoginPage' },
  register: { path: '/register', page: 'auth/RegisterPage' },
  forgot: { path: '/forgot', page: 'auth/ForgotPage' },
  reset: { path: '/reset/:token', page: 'auth/ResetPage' },
  verifyEmail: { path: '/verify-email', page: 'auth/VerifyEmailPage' },
  verifyPhone: { path: '/verify-phone', page: 'auth/VerifyPhonePage' },
  verifyJoin: { path: '/verify-join', page: 'campaigns/VerifyJoinPage' },

  account: { path: '/account', page: 'account/AccountPage' },
  favorites: { path: '/favorites', page: 'favorites/FavoritesPage' },
  my: { path: '/my', page: 'my/MyPage' },
  myCampaigns: { path: '/myCampaigns', page: 'my/MyCampaignsPage' },
  myProjects: { path: '/myProjects', page: 'my/MyProjectsPage' },
  myDisputes: { path: '/myDisputes', page: 'disputes/MyDisputesPage' },
  newDispute: { path: '/disputes/new', page: 'disputes/NewDisputePage' },
  messages: { path: '/messages', page: 'messages/MessagesPage' },
  blocked: { path: '/blocked', page: 'blocked/BlockedPage' },

  campaigns: { path: '/campaigns', page: 'campaigns/CampaignsPage' },
  newCampaign: { path: '/campaigns/new', page: 'campaigns/NewCampaignPage' },
  campaign: { path: '/campaigns/:id', page: 'campaigns/CampaignDetailPage' },
  editCampaign: { path: '/campaigns/:id/edit', page: 'campaigns/EditCampaignPage' },
  dashboard: { path: '/campaigns/:id/dashboard', page: 'campaigns/DashboardPage' },
  receipt: { path: '/donations/:id', page: 'donations/ReceiptPage' },

  projects: { path: '/projects', page: 'projects/ProjectsPage' },
  newProject: { path: '/projects/new', page: 'projects/NewProjectPage' },
  editProject: { path: '/projects/:id/edit', page: 'projects/EditProjectPage' },
  project: { path: '/projects/:id', page: 'projects/ProjectDetailPage' },

  teams: { path: '/teams', page: 'teams/TeamsPage' },
  newTeam: { path: '/teams/new', page: 'teams/NewTeamPage' },
  manageTeam: { path: '/teams/:id/manage', page: 'teams/ManageTeamPage' },
  team: { path: '/teams/:id', page: 'teams/TeamDetailPage' },

  profiles: { path: '/profiles', page: 'profiles/ProfilesPage' },
  profile: { path: '/profiles/:id', page: 'profiles/ProfilePage' },

  about: { path: '/about', page: 'info/AboutPage' },
  howItWorks: { path: '/how-it-works', page: 'info/HowItWorksPage' },
  fees: { path: '/fees', page: 'info/FeesPage' },
  trust: { path: '/trust', page: 'info/TrustPage' },
  terms: { path: '/terms', page: 'info/TermsPage' },
  privacy: { path: '/privacy', page: 'info/PrivacyPage' },

  admin: { path: '/admin', page: 'admin/AdminPage' },
  adminCron: { path: '/admin/cron', page: 'admin/AdminCronPage' },
} as const satisfies Record<string, { path: string; page: string }>;

export type AppRouteName = keyof typeof appRoutes;

export const appRouteNames = Object.keys(appRoutes) as AppRouteName[];

/**
 * A route pattern as React Router matches it (its `compilePath` with `end: true`): letters in
 * any case, `:name` is one non-empty path segment, trailing slashes are allowed.
 */
function compile(pattern: string): RegExp {
  const source = pattern
    .replace(/\/*\*?$/, '')
    .replace(/^\/*/, '/')
    .replace(/[\\.*+^${}|()[\]]/g, '\\$&')
    .replace(/\/:[\w-]+/g, '/([^\\/]+)');
  return new RegExp(`^${source}\\/*$`, 'i');
}

/** Each route's pattern, compiled when first asked for: the client's router does its own matching. */
let compiled: { name: AppRouteName; re: RegExp; keys: string[] }[] | undefined;

/**
 * The route that shows `pathname` (decoded, without query) with its parameters, or undefined
 * when none can: the client then shows its "Page not found" page. A static path wins over a
 * parameter (`/campaigns/new` is not a campaign), as in the client's router.
 */
export function matchAppPath(pathname: string): { name: AppRouteName; params: Record<string, string> } | undefined {
  compiled ??= appRouteNames.map((name) => ({
    name,
    re: compile(appRoutes[name].path),
    keys: Array.from(appRoutes[name].path.matchAll(/\/:([\w-]+)/g), (m) => m[1]),
  }));
  let best: { name: AppRouteName; keys: string[]; match: RegExpExecArray } | undefined;
  for (const { name, re, keys } of compiled) {
    const match = re.exec(pathname);
    if (!match) continue;
    if (!best || keys.length < best.keys.length) best = { name, keys, match };
  }
  if (!best) return undefined;
  const { match } = best;
  return { name: best.name, params: Object.fromEntries(best.keys.map((k, i) => [k, match[i + 1]])) };
}

/** The name of the route that shows `pathname` (see matchAppPath), or undefined. */
export function matchAppRoute(pathname: string): AppRouteName | undefined {
  return matchAppPath(pathname)?.name;
}
