import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../../shared/schemas/campaigns';
import { BlockInput, BlockListSchema, BlocksQuery, BlockStateSchema } from '../../../shared/schemas/community';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function blocksRest(app: FastifyInstance, { blocks }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/blocks',
    summary: 'The people I blocked',
    tag: 'blocks',
    auth: 'required',
    errors: {},
    query: BlocksQuery,
    response: BlockListSchema,
    handler: ({ query, actor }) => blocks.list(actor, query),
  });
  /** Whether I blocked this person: `{ blocked, userId }`. */
  restRoute(app, {
    method: 'GET',
    url: '/api/blocks/:id',
    summary: 'Whether I blocked this person',
    tag: 'blocks',
    auth: 'required',
    errors: { 404: 'User not found' },
    params: IdParams,
    response: BlockStateSchema,
    handler: ({ params, actor }) => blocks.status(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/blocks',
    summary: 'Block a person',
    tag: 'blocks',
    auth: 'required',
    errors: { 404: 'User not found', 409: 'You cannot block yourself', 429: 'Block budget spent (`Retry-After`)' },
    body: BlockInput,
    response: BlockStateSchema,
    status: 201,
    handler: ({ body, actor }) => blocks.block(actor, body.userId),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/blocks/:id',
    summary: 'Unblock a person',
    tag: 'blocks',
    auth: 'required',
    errors: { 404: 'User not found', 429: 'Block budget spent (`Retry-After`)' },
    params: IdParams,
    response: BlockStateSchema,
    handler: ({ params, actor }) => blocks.unblock(actor, params.id),
  });
}
