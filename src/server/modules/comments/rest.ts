import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../../shared/schemas/campaigns';
import { CommentListSchema, CommentParams, CommentSchema, CreateCommentInput, UpdateCommentInput } from '../../../shared/schemas/community';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function commentsRest(app: FastifyInstance, { comments }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/comments',
    params: IdParams,
    response: CommentListSchema,
    handler: ({ params, actor }) => comments.list(actor, params.id),
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
