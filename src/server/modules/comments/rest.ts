import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../../shared/schemas/campaigns';
import {
  CommentThreadListSchema,
  CommentPageQuery,
  CommentParams,
  CommentRepliesSchema,
  CommentSchema,
  CreateCommentInput,
  UpdateCommentInput,
} from '../../../shared/schemas/community';
import { nextPageHeaders, restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function commentsRest(app: FastifyInstance, { comments }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/comments',
    summary: 'A page of a campaign’s comment threads',
    tag: 'comments',
    auth: 'optional',
    errors: { 404: 'Campaign not found' },
    pagedByHeaders: true,
    params: IdParams,
    query: CommentPageQuery,
    // the spec's answer is a list: the page's threads; the next page's cursor is in headers
    response: CommentThreadListSchema,
    handler: async ({ params, query, actor }, req, reply) => {
      const page = await comments.list(actor, params.id, query);
      nextPageHeaders(req, reply, page.nextCursor);
      return page.items;
    },
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/comments/:commentId/replies',
    summary: 'A page of a comment’s replies',
    tag: 'comments',
    auth: 'optional',
    errors: { 404: 'Campaign or comment not found' },
    params: CommentParams,
    query: CommentPageQuery,
    response: CommentRepliesSchema,
    handler: ({ params, query, actor }) => comments.replies(actor, params.id, params.commentId, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/comments',
    summary: 'Comment on a campaign, or reply to a comment',
    tag: 'comments',
    auth: 'required',
    errors: {
      403: 'Blocked by the campaign’s owner or the comment’s author',
      404: 'Campaign or parent comment not found',
      409: 'The campaign is a draft: comments open at its release',
      429: 'Comment budget spent (`Retry-After`)',
    },
    params: IdParams,
    body: CreateCommentInput,
    response: CommentSchema,
    status: 201,
    handler: ({ params, body, actor }) => comments.create(actor, params.id, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id/comments/:commentId',
    summary: 'Edit my comment',
    tag: 'comments',
    auth: 'required',
    errors: { 403: 'Not the comment’s author', 404: 'Campaign or comment not found', 409: 'The comment was deleted' },
    params: CommentParams,
    body: UpdateCommentInput,
    response: CommentSchema,
    handler: ({ params, body, actor }) => comments.update(actor, params.id, params.commentId, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/campaigns/:id/comments/:commentId',
    summary: 'Delete a comment',
    tag: 'comments',
    auth: 'required',
    errors: { 403: 'Not allowed to delete this comment', 404: 'Campaign or comment not found' },
    params: CommentParams,
    response: CommentSchema,
    handler: ({ params, actor }) => comments.remove(actor, params.id, params.commentId),
  });
}
