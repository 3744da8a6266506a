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
    response: StoredTokensSchema,
    handler: ({ actor }) => admin.listTokens(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/tokens',
    body: StoreTokenInput,
    response: StoreTokenResult,
    handler: ({ body, actor }) => admin.storeToken(actor, body),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/users',
    query: AdminUsersQuery,
    response: AdminUsersPage,
    handler: ({ query, actor }) => admin.listUsers(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/users/:id/history',
    params: AdminUserIdParams,
    query: UserHistoryQuery,
    response: UserHistoryPage,
    handler: ({ params, query, actor }) => admin.userHistory(actor, params.id, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/users/:id/admin',
    params: AdminUserIdParams,
    body: SetAdminInput,
    response: AdminUserSchema,
    handler: ({ params, body, actor }) => admin.setAdmin(actor, params.id, body.admin),
  });
}
