import {
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
import { IdSchema } from '../../../shared/schemas/common';
import { adminProcedure, router } from '../../trpc/init';

/** The admin console: admins only (adminProcedure: 401 signed out, 403 for everybody else; the service checks again). */
export const adminRouter = router({
  tokens: adminProcedure.output(StoredTokensSchema).query(({ ctx }) => ctx.services.admin.listTokens(ctx.actor)),
  storeToken: adminProcedure
    .input(StoreTokenInput)
    .output(StoreTokenResult)
    .mutation(({ ctx, input }) => ctx.services.admin.storeToken(ctx.actor, input)),
  users: adminProcedure
    .input(AdminUsersQuery.prefault({}))
    .output(AdminUsersPage)
    .query(({ ctx, input }) => ctx.services.admin.listUsers(ctx.actor, input)),
  userHistory: adminProcedure
    .input(UserHistoryQuery.extend({ id: IdSchema }))
    .output(UserHistoryPage)
    .query(({ ctx, input }) => ctx.services.admin.userHistory(ctx.actor, input.id, input)),
  setAdmin: adminProcedure
    .input(SetAdminInput.extend({ id: IdSchema }))
    .output(AdminUserSchema)
    .mutation(({ ctx, input }) => ctx.services.admin.setAdmin(ctx.actor, input.id, input.admin)),
});
