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
    params: CommentParams,
    query: CommentPageQuery,
    response: CommentRepliesSchema,
    handler: ({ params, query, actor }) => comments.replies(actor, params.id, params.commentId, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/comments',
    params: IdParams,
    body: CreateCommentInput,
    response: CommentSchema,
    status: 201,
    handler: ({ params, body, actor }) => comments.create(actor, params.id, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id/comments/:commentId',
    params: CommentParams,
    body: UpdateCommentInput,
    response: CommentSchema,
    handler: ({ params, body, actor }) => comments.update(actor, params.id, params.commentId, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/campaigns/:id/comments/:commentId',
    params: CommentParams,
    response: CommentSchema,
    handler: ({ params, actor }) => comments.remove(actor, params.id, params.commentId),
  });
}
