import { z } from 'zod';
import { ChangePasswordInput, ForgotPasswordInput, LoginInput, RegisterInput, ResetPasswordInput, VerifyEmailInput } from '../../../shared/schemas/auth';
import { MessageSchema } from '../../../shared/schemas/common';
import { UserSchema } from '../../../shared/schemas/user';
import { clearSessionCookie, setSessionCookie } from '../../http/session-cookie';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

export const authRouter = router({
  me: publicProcedure.output(UserSchema.nullable()).query(({ ctx }) => ctx.services.auth.me(ctx.actor)),
  register: publicProcedure
    .input(RegisterInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.register(input, ctx.actor)),
  login: publicProcedure
    .input(LoginInput)
    .output(z.object({ user: UserSchema }))
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.services.auth.login(input, ctx.actor);
      // the browser keeps the session in the httpOnly cookie only
      setSessionCookie(ctx.res, ctx.deps.config, r.token, r.expiresAt);
      return { user: r.user };
    }),
  logout: publicProcedure.output(MessageSchema).mutation(async ({ ctx }) => {
    const r = await ctx.services.auth.logout(ctx.actor);
    clearSessionCookie(ctx.res, ctx.deps.config);
    return r;
  }),
  changePassword: authedProcedure
    .input(ChangePasswordInput)
    .output(MessageSchema)
    .mutation(async ({ ctx, input }) => {
      const r = await ctx.services.auth.changePassword(ctx.actor, input);
      setSessionCookie(ctx.res, ctx.deps.config, r.token, r.expiresAt);
      return { message: r.message };
    }),
  verifyEmail: publicProcedure
    .input(VerifyEmailInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.verifyEmail(input, ctx.actor)),
  resendVerification: authedProcedure.output(MessageSchema).mutation(({ ctx }) => ctx.services.auth.resendVerification(ctx.actor)),
  forgotPassword: publicProcedure
    .input(ForgotPasswordInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.forgotPassword(input, ctx.actor)),
  resetPassword: publicProcedure
    .input(ResetPasswordInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.resetPassword(input, ctx.actor)),
});
