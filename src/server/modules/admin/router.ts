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
import { authedProcedure, router } from '../../trpc/init';

/** The admin console (the service answers 403 to everybody but admins). */
export const adminRouter = router({
  tokens: authedProcedure.output(StoredTokensSchema).query(({ ctx }) => ctx.services.admin.listTokens(ctx.actor)),
  storeToken: authedProcedure
    .input(StoreTokenInput)
    .output(StoreTokenResult)
    .mutation(({ ctx, input }) => ctx.services.admin.storeToken(ctx.actor, input)),
  users: authedProcedure
    .input(AdminUsersQuery.prefault({}))
    .output(AdminUsersPage)
    .query(({ ctx, input }) => ctx.services.admin.listUsers(ctx.actor, input)),
  userHistory: authedProcedure
    .input(UserHistoryQuery.extend({ id: IdSchema }))
    .output(UserHistoryPage)
    .query(({ ctx, input }) => ctx.services.admin.userHistory(ctx.actor, input.id, input)),
  setAdmin: authedProcedure
    .input(SetAdminInput.extend({ id: IdSchema }))
    .output(AdminUserSchema)
    .mutation(({ ctx, input }) => ctx.services.admin.setAdmin(ctx.actor, input.id, input.admin)),
});
