import type { FastifyInstance } from 'fastify';
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
  LinkParams,
  LinkResultSchema,
  MemberParams,
  MemberRoleInput,
  PREVIEW_KINDS,
  PreviewLinkSchema,
  PreviewMemberSchema,
  PreviewMeSchema,
  RevokeAllResultSchema,
  SettingsInput,
} from '../../../shared/schemas/previews';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

const ById = z.object({ id: IdSchema });

/**
 * The preview circle's calls (issue #30), the same for `/api/campaigns/{id}/...` and
 * `/api/projects/{id}/...`. A token is sent in the X-Preview-Token header (or held in the
 * cookie a preview address sets); whoever may not see the draft gets the item's 404.
 */
export function previewsRest(app: FastifyInstance, { previews }: Services): void {
  for (const kind of PREVIEW_KINDS) {
    const base = `/api/${kind}s/:id`;
    const Item = kind === 'campaign' ? 'Campaign' : 'Project';
    const tag = kind === 'campaign' ? ('campaigns' as const) : ('projects' as const);
    const missing = `${Item} not found (also for whoever may not see the draft)`;
    restRoute(app, {
      method: 'GET',
      url: `${base}/circle`,
      summary: `My ${kind}'s preview circle: members with their visits, links, settings, failed token lookups`,
      tag,
      auth: 'required',
      errors: { 403: 'Not the owner', 404: missing },
      params: ById,
      response: CircleSchema,
      handler: ({ params, actor }) => previews.circle(actor, kind, params.id),
    });
    restRoute(app, {
      method: 'POST',
      url: `${base}/circle/members`,
      summary: `Invite a person to my draft ${kind} by username or email (as viewer or commenter); an email invite's link is answered once and emailed`,
      tag,
      auth: 'required',
      errors: {
        400: 'Not a username or email address, or myself',
        403: 'Not the owner',
        404: `${missing}, or no such user`,
        409: 'Already in the circle, or released',
      },
      params: ById,
      body: InviteInput,
      response: InviteResultSchema,
      status: 201,
      handler: ({ params, body, actor }) => previews.invite(actor, kind, params.id, body),
    });
    restRoute(app, {
      method: 'PATCH',
      url: `${base}/circle/members/:memberId`,
      summary: 'Change a circle member’s role',
      tag,
      auth: 'required',
      errors: { 403: 'Not the owner', 404: `${missing}, or no such member`, 409: 'Released, or the member is revoked' },
      params: MemberParams,
      body: MemberRoleInput,
      response: PreviewMemberSchema,
      handler: ({ params, body, actor }) => previews.setRole(actor, kind, params.id, params.memberId, body),
    });
    restRoute(app, {
      method: 'DELETE',
      url: `${base}/circle/members/:memberId`,
      summary: 'Revoke a circle member',
      tag,
      auth: 'required',
      errors: { 403: 'Not the owner', 404: `${missing}, or no such member`, 409: 'Released' },
      params: MemberParams,
      response: PreviewMemberSchema,
      handler: ({ params, actor }) => previews.revokeMember(actor, kind, params.id, params.memberId),
    });
    restRoute(app, {
      method: 'POST',
      url: `${base}/circle/links`,
      summary: 'Make a preview link for anyone who has it (a label, 1-90 days); its address is answered once',
      tag,
      auth: 'required',
      errors: { 400: 'No label, or days out of range', 403: 'Not the owner', 404: missing, 409: 'Released' },
      params: ById,
      body: LinkInput,
      response: LinkResultSchema,
      status: 201,
      handler: ({ params, body, actor }) => previews.createLink(actor, kind, params.id, body),
    });
    restRoute(app, {
      method: 'DELETE',
      url: `${base}/circle/links/:linkId`,
      summary: 'Revoke a preview link',
      tag,
      auth: 'required',
      errors: { 403: 'Not the owner', 404: `${missing}, or no such link`, 409: 'Released' },
      params: LinkParams,
      response: PreviewLinkSchema,
      handler: ({ params, actor }) => previews.revokeLink(actor, kind, params.id, params.linkId),
    });
    restRoute(app, {
      method: 'POST',
      url: `${base}/circle/revoke-all`,
      summary: 'Revoke every link and invite token of my draft (and with them its images for their holders)',
      tag,
      auth: 'required',
      errors: { 403: 'Not the owner', 404: missing, 409: 'Released' },
      params: ById,
      response: RevokeAllResultSchema,
      handler: ({ params, actor }) => previews.revokeAll(actor, kind, params.id),
    });
    restRoute(app, {
      method: 'PATCH',
      url: `${base}/circle/settings`,
      summary: 'Whether the circle reads the feedback; hours after release before followers are emailed',
      tag,
      auth: 'required',
      errors: { 400: 'Delay out of range', 403: 'Not the owner', 404: missing },
      params: ById,
      body: SettingsInput,
      response: CircleSettingsSchema,
      handler: ({ params, body, actor }) => previews.updateSettings(actor, kind, params.id, body),
    });
    restRoute(app, {
      method: 'GET',
      url: `${base}/preview`,
      summary: `What I am to this draft ${kind}: owner, circle member (viewer or commenter) or a link’s holder`,
      tag,
      auth: 'optional',
      errors: { 404: missing },
      params: ById,
      response: PreviewMeSchema,
      handler: ({ params, actor }) => previews.me(actor, kind, params.id),
    });
    restRoute(app, {
      method: 'POST',
      url: `${base}/preview/join`,
      summary: 'Holding an email invite: continue under the name I type (signed out), or as my account (signed in)',
      tag,
      auth: 'optional',
      errors: { 400: 'No name', 403: 'Not an email invite', 404: missing },
      params: ById,
      body: JoinInput,
      response: PreviewMeSchema,
      handler: ({ params, body, actor }) => previews.join(actor, kind, params.id, body),
    });
    restRoute(app, {
      method: 'GET',
      url: `${base}/feedback`,
      summary: 'The draft’s private feedback (the owner; the circle when the owner lets it)',
      tag,
      auth: 'optional',
      errors: { 403: 'The owner keeps the feedback to themselves', 404: missing },
      params: ById,
      response: FeedbackListSchema,
      handler: ({ params, actor }) => previews.feedback(actor, kind, params.id),
    });
    restRoute(app, {
      method: 'POST',
      url: `${base}/feedback`,
      summary: 'Give feedback on a draft (commenters and the owner)',
      tag,
      auth: 'optional',
      errors: { 400: 'Empty or too long', 403: 'Not a commenter', 404: missing, 409: 'Released: feedback is closed', 429: 'Too many (`Retry-After`)' },
      params: ById,
      body: FeedbackInput,
      response: FeedbackSchema,
      status: 201,
      handler: ({ params, body, actor }) => previews.addFeedback(actor, kind, params.id, body),
    });
  }
}
