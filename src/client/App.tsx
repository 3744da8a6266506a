import { lazy, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject } from 'react-router-dom';
import { RequireAdmin, RequireSignIn } from './auth/guards';
import { RouteError } from './components/RouteError';
import { BareLayout, Layout } from './layout/Layout';

/*
 * The route table of the product (spec section 2), in one place. Pages are split with React.lazy
 * so the first page stays small; each lives in pages/<domain>/ and is its domain's to fill.
 */
const page = (load: () => Promise<{ default: ComponentType }>): LazyExoticComponent<ComponentType> => lazy(load);

const HomePage = page(() => import('./pages/home/HomePage'));
// auth
const LoginPage = page(() => import('./pages/auth/LoginPage'));
const RegisterPage = page(() => import('./pages/auth/RegisterPage'));
const ForgotPage = page(() => import('./pages/auth/ForgotPage'));
const ResetPage = page(() => import('./pages/auth/ResetPage'));
const VerifyEmailPage = page(() => import('./pages/auth/VerifyEmailPage'));
const VerifyPhonePage = page(() => import('./pages/auth/VerifyPhonePage'));
// account, my area
const AccountPage = page(() => import('./pages/account/AccountPage'));
const FavoritesPage = page(() => import('./pages/favorites/FavoritesPage'));
const MyPage = page(() => import('./pages/my/MyPage'));
const MyCampaignsPage = page(() => import('./pages/my/MyCampaignsPage'));
const MyProjectsPage = page(() => import('./pages/my/MyProjectsPage'));
const BlockedPage = page(() => import('./pages/blocked/BlockedPage'));
const MessagesPage = page(() => import('./pages/messages/MessagesPage'));
// campaigns
const CampaignsPage = page(() => import('./pages/campaigns/CampaignsPage'));
const NewCampaignPage = page(() => import('./pages/campaigns/NewCampaignPage'));
const EditCampaignPage = page(() => import('./pages/campaigns/EditCampaignPage'));
const CampaignDetailPage = page(() => import('./pages/campaigns/CampaignDetailPage'));
const VerifyJoinPage = page(() => import('./pages/campaigns/VerifyJoinPage'));
// donations
const ReceiptPage = page(() => import('./pages/donations/ReceiptPage'));
// disputes
const MyDisputesPage = page(() => import('./pages/disputes/MyDisputesPage'));
const NewDisputePage = page(() => import('./pages/disputes/NewDisputePage'));
// profiles
const ProfilesPage = page(() => import('./pages/profiles/ProfilesPage'));
const ProfilePage = page(() => import('./pages/profiles/ProfilePage'));
// projects
const ProjectsPage = page(() => import('./pages/projects/ProjectsPage'));
const NewProjectPage = page(() => import('./pages/projects/NewProjectPage'));
const EditProjectPage = page(() => import('./pages/projects/EditProjectPage'));
const ProjectDetailPage = page(() => import('./pages/projects/ProjectDetailPage'));
// teams
const TeamsPage = page(() => import('./pages/teams/TeamsPage'));
const NewTeamPage = page(() => import('./pages/teams/NewTeamPage'));
const ManageTeamPage = page(() => import('./pages/teams/ManageTeamPage'));
const TeamDetailPage = page(() => import('./pages/teams/TeamDetailPage'));
// admin
const AdminPage = page(() => import('./pages/admin/AdminPage'));
const AdminCronPage = page(() => import('./pages/admin/AdminCronPage'));

const signedIn = (el: ReactNode) => <RequireSignIn>{el}</RequireSignIn>;
const adminOnly = (el: ReactNode) => <RequireAdmin>{el}</RequireAdmin>;

/** Routes inside the shared layout. Visitors may browse; signedIn() pages ask to log in; adminOnly() shows Access denied. */
const layoutRoutes: RouteObject[] = [
  { index: true, element: <HomePage /> },

  { path: 'login', element: <LoginPage /> },
  { path: 'register', element: <RegisterPage /> },
  { path: 'forgot', element: <ForgotPage /> },
  { path: 'reset/:token', element: <ResetPage /> },
  { path: 'verify-email', element: <VerifyEmailPage /> },
  { path: 'verify-phone', element: <VerifyPhonePage /> },
  { path: 'verify-join', element: <VerifyJoinPage /> },

  { path: 'account', element: signedIn(<AccountPage />) },
  { path: 'favorites', element: signedIn(<FavoritesPage />) },
  { path: 'my', element: <MyPage /> }, // the page itself shows the spec's signed-out text
  { path: 'myCampaigns', element: signedIn(<MyCampaignsPage />) },
  { path: 'myProjects', element: signedIn(<MyProjectsPage />) },
  { path: 'myDisputes', element: signedIn(<MyDisputesPage />) },
  { path: 'disputes/new', element: signedIn(<NewDisputePage />) },
  { path: 'messages', element: signedIn(<MessagesPage />) },
  { path: 'blocked', element: signedIn(<BlockedPage />) },

  { path: 'campaigns', element: <CampaignsPage /> },
  { path: 'campaigns/new', element: signedIn(<NewCampaignPage />) },
  { path: 'campaigns/:id/edit', element: signedIn(<EditCampaignPage />) },
  { path: 'campaigns/:id', element: <CampaignDetailPage /> },
  // a guest's receipt link carries ?token=, so the page is open to visitors
  { path: 'donations/:id', element: <ReceiptPage /> },

  { path: 'projects', element: <ProjectsPage /> },
  { path: 'projects/new', element: signedIn(<NewProjectPage />) },
  { path: 'projects/:id/edit', element: signedIn(<EditProjectPage />) },
  { path: 'projects/:id', element: <ProjectDetailPage /> },

  { path: 'teams', element: <TeamsPage /> },
  { path: 'teams/new', element: signedIn(<NewTeamPage />) },
  { path: 'teams/:id/manage', element: signedIn(<ManageTeamPage />) },
  { path: 'teams/:id', element: <TeamDetailPage /> },

  { path: 'profiles', element: <ProfilesPage /> },
  { path: 'profiles/:id', element: <ProfilePage /> },

  { path: 'admin', element: adminOnly(<AdminPage />) },

  // any unknown path goes home
  { path: '*', element: <Navigate to="/" replace /> },
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
        children: [{ path: 'admin/cron', errorElement: <RouteError />, element: adminOnly(<AdminCronPage />) }],
      },
    ],
  },
];

const router = createBrowserRouter(routes);

export function App() {
  return <RouterProvider router={router} />;
}
