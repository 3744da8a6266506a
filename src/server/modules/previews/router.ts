import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import {
  CircleSchema,
  CircleSettingsSchema,
  FeedbackInput,
  FeedbackListSchema,
  FeedbackSchema,
  InviteInput,
  InviteResultSchema,
  JoinInput,
  LinkInput,
  LinkResultSchema,
  MemberRoleInput,
  PREVIEW_KINDS,
  PreviewLinkSchema,
  PreviewMemberSchema,
  PreviewMeSchema,
  RevokeAllResultSchema,
  SettingsInput,
} from '../../../shared/schemas/previews';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

const Item = z.object({ kind: z.enum(PREVIEW_KINDS), id: IdSchema });

/** The preview circle's calls (issue #30): the same service as rest.ts. */
export const previewsRouter = router({
  circle: authedProcedure
    .input(Item)
    .output(CircleSchema)
    .query(({ ctx, input }) => ctx.services.previews.circle(ctx.actor, input.kind, input.id)),
  invite: authedProcedure
    .input(Item.extend({ data: InviteInput }))
    .output(InviteResultSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.invite(ctx.actor, input.kind, input.id, input.data)),
  setRole: authedProcedure
    .input(Item.extend({ memberId: IdSchema, data: MemberRoleInput }))
    .output(PreviewMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.setRole(ctx.actor, input.kind, input.id, input.memberId, input.data)),
  revokeMember: authedProcedure
    .input(Item.extend({ memberId: IdSchema }))
    .output(PreviewMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.revokeMember(ctx.actor, input.kind, input.id, input.memberId)),
  createLink: authedProcedure
    .input(Item.extend({ data: LinkInput }))
    .output(LinkResultSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.createLink(ctx.actor, input.kind, input.id, input.data)),
  revokeLink: authedProcedure
    .input(Item.extend({ linkId: IdSchema }))
    .output(PreviewLinkSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.revokeLink(ctx.actor, input.kind, input.id, input.linkId)),
  revokeAll: authedProcedure
    .input(Item)
    .output(RevokeAllResultSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.revokeAll(ctx.actor, input.kind, input.id)),
  updateSettings: authedProcedure
    .input(Item.extend({ data: SettingsInput }))
    .output(CircleSettingsSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.updateSettings(ctx.actor, input.kind, input.id, input.data)),
  me: publicProcedure
    .input(Item)
    .output(PreviewMeSchema)
    .query(({ ctx, input }) => ctx.services.previews.me(ctx.actor, input.kind, input.id)),
  join: publicProcedure
    .input(Item.extend({ data: JoinInput }))
    .output(PreviewMeSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.join(ctx.actor, input.kind, input.id, input.data)),
  feedback: publicProcedure
    .input(Item)
    .output(FeedbackListSchema)
    .query(({ ctx, input }) => ctx.services.previews.feedback(ctx.actor, input.kind, input.id)),
  addFeedback: publicProcedure
    .input(Item.extend({ data: FeedbackInput }))
    .output(FeedbackSchema)
    .mutation(({ ctx, input }) => ctx.services.previews.addFeedback(ctx.actor, input.kind, input.id, input.data)),
});
