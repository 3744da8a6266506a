import { lazy, useState, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { appRouteNames, appRoutes, matchAppRoute, type AppRouteName } from '../shared/routes';
import { RequireAdmin, RequireSignIn } from './auth/guards';
import { RouteError } from './components/RouteError';
import { BareLayout, Layout } from './layout/Layout';
import { NotFoundPage } from './pages/NotFoundPage';

/*
 * The route table of the product (spec section 2). The paths and page modules are one list shared
 * with the server (src/shared/routes.ts), which answers 404 for a path none of them matches.
 * Pages are split with React.lazy so the first page stays small; each lives in pages/<domain>/
 * and is its domain's to fill.
 */
const pageModules = import.meta.glob<{ default: ComponentType }>('./pages/*/*Page.tsx');

/** A route's page module: loaded when first shown (React.lazy), or before, by preloadPage(). */
interface LazyPage {
  Lazy: ComponentType;
  /** The page's component once its module is in. */
  loaded?: ComponentType;
  load(): Promise<unknown>;
}

function lazyPage(name: AppRouteName): LazyPage {
  const file = `./pages/${appRoutes[name].page}.tsx`;
  const importPage = pageModules[file];
  if (!importPage) throw new Error(`The route ${name} names a page module that does not exist: ${file}`);
  const page: LazyPage = {
    Lazy: lazy(() => page.load() as Promise<{ default: ComponentType }>),
    load: () =>
      importPage().then((m) => {
        page.loaded = m.default;
        return m;
      }),
  };
  return page;
}

/**
 * A page already loaded renders at once (React.lazy would first suspend for a turn and show the
 * loading state); which of the two a mounted page renders never changes, so it keeps its state.
 */
function RoutePage({ page }: { page: LazyPage }) {
  const [Shown] = useState<ComponentType>(() => page.loaded ?? page.Lazy);
  return <Shown />;
}

const pages = Object.fromEntries(appRouteNames.map((name) => [name, lazyPage(name)])) as Record<AppRouteName, LazyPage>;

/**
 * Loads the page module of the route that shows `pathname` (the server preloads its files with
 * the page), so the first render shows the page itself rather than a loading state first.
 * Resolves either way: a module that failed to load is asked for again when the route renders.
 */
export function preloadPage(pathname: string): Promise<void> {
  const route = matchAppRoute(pathname);
  return route
    ? pages[route].load().then(
        () => undefined,
        () => undefined,
      )
    : Promise.resolve();
}

const signedIn = (el: ReactNode) => <RequireSignIn>{el}</RequireSignIn>;
const adminOnly = (el: ReactNode) => <RequireAdmin>{el}</RequireAdmin>;

/**
 * What each route shows inside the shared layout. Visitors may browse; signedIn() pages ask to
 * log in; adminOnly() shows Access denied. Every route of the shared list has its element here
 * (the type says so), except the one page outside the layout.
 */
// keyed by route: another route's page is another component (its own state), as with React.lazy
const show = (name: AppRouteName) => <RoutePage key={name} page={pages[name]} />;
const layoutElements: Record<Exclude<AppRouteName, 'adminCron'>, ReactNode> = {
  home: show('home'),

  login: show('login'),
  register: show('register'),
  forgot: show('forgot'),
  reset: show('reset'),
  verifyEmail: show('verifyEmail'),
  verifyPhone: show('verifyPhone'),
  verifyJoin: show('verifyJoin'),

  account: signedIn(show('account')),
  favorites: signedIn(show('favorites')),
  my: show('my'), // the page itself shows the spec's signed-out text
  myCampaigns: signedIn(show('myCampaigns')),
  myProjects: signedIn(show('myProjects')),
  myDisputes: signedIn(show('myDisputes')),
  newDispute: signedIn(show('newDispute')),
  messages: signedIn(show('messages')),
  blocked: signedIn(show('blocked')),

  campaigns: show('campaigns'),
  newCampaign: signedIn(show('newCampaign')),
  campaign: show('campaign'),
  editCampaign: signedIn(show('editCampaign')),
  // the campaign's owner only (anyone else: Access denied, or Not found for a campaign they cannot see)
  dashboard: signedIn(show('dashboard')),
  // a guest's receipt link carries ?token=, so the page is open to visitors
  receipt: show('receipt'),

  projects: show('projects'),
  newProject: signedIn(show('newProject')),
  editProject: signedIn(show('editProject')),
  project: show('project'),

  teams: show('teams'),
  newTeam: signedIn(show('newTeam')),
  manageTeam: signedIn(show('manageTeam')),
  team: show('team'),

  profiles: show('profiles'),
  profile: show('profile'),

  about: show('about'),
  howItWorks: show('howItWorks'),
  fees: show('fees'),
  trust: show('trust'),
  terms: show('terms'),
  privacy: show('privacy'),

  admin: adminOnly(show('admin')),
};

const layoutRoutes: RouteObject[] = [
  ...Object.entries(layoutElements).map(([name, element]) => ({ path: appRoutes[name as AppRouteName].path, element })),
  // any other path: a page that says so, with a way back (the server answers it with a 404)
  { path: '*', element: <NotFoundPage /> },
];

export const routes: RouteObject[] = [
  {
    path: '/',
    errorElement: <RouteError />,
    children: [
      {
        element: <Layout />,
        // page errors show inside the layout; a layout error falls back to the root errorElement
        children: [{ errorElement: <RouteError />, children: layoutRoutes }],
      },
      {
        // the one page outside the shared layout
        element: <BareLayout />,
        children: [{ path: appRoutes.adminCron.path, errorElement: <RouteError />, element: adminOnly(show('adminCron')) }],
      },
    ],
  },
];

const router = createBrowserRouter(routes);

export function App() {
  return <RouterProvider router={router} />;
}
