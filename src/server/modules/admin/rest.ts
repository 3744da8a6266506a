import type { FastifyInstance } from 'fastify';
import {
  AdminUserIdParams,
  AdminUserSchema,
  AdminUsersPage,
  AdminUsersQuery,
  SetAdminInput,
  StoredTokensSchema,
  StoreTokenInput,
  StoreTokenResult,
  UserHistoryPage,
  UserHistoryQuery,
} from '../../../shared/schemas/admin';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function adminRest(app: FastifyInstance, { admin }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/tokens',
    summary: 'The stored tokens (names and when they were set, never values)',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    response: StoredTokensSchema,
    handler: ({ actor }) => admin.listTokens(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/tokens',
    summary: 'Store a token (encrypted)',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    body: StoreTokenInput,
    response: StoreTokenResult,
    handler: ({ body, actor }) => admin.storeToken(actor, body),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/users',
    summary: 'Search accounts',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    query: AdminUsersQuery,
    response: AdminUsersPage,
    handler: ({ query, actor }) => admin.listUsers(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/users/:id/history',
    summary: 'An account’s history',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'User not found' },
    params: AdminUserIdParams,
    query: UserHistoryQuery,
    response: UserHistoryPage,
    handler: ({ params, query, actor }) => admin.userHistory(actor, params.id, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/users/:id/admin',
    summary: 'Grant or revoke admin',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'User not found', 409: 'An admin cannot revoke their own admin' },
    params: AdminUserIdParams,
    body: SetAdminInput,
    response: AdminUserSchema,
    handler: ({ params, body, actor }) => admin.setAdmin(actor, params.id, body.admin),
  });
}
