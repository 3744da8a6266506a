import { lazy, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { appRouteNames, appRoutes, type AppRouteName } from '../shared/routes';
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

function lazyPage(name: AppRouteName): LazyExoticComponent<ComponentType> {
  const file = `./pages/${appRoutes[name].page}.tsx`;
  const load = pageModules[file];
  if (!load) throw new Error(`The route ${name} names a page module that does not exist: ${file}`);
  return lazy(load);
}

const pages = Object.fromEntries(appRouteNames.map((name) => [name, lazyPage(name)])) as Record<AppRouteName, LazyExoticComponent<ComponentType>>;

const signedIn = (el: ReactNode) => <RequireSignIn>{el}</RequireSignIn>;
const adminOnly = (el: ReactNode) => <RequireAdmin>{el}</RequireAdmin>;

/**
 * What each route shows inside the shared layout. Visitors may browse; signedIn() pages ask to
 * log in; adminOnly() shows Access denied. Every route of the shared list has its element here
 * (the type says so), except the one page outside the layout.
 */
const show = (name: AppRouteName) => {
  const Page = pages[name];
  return <Page />;
};
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
