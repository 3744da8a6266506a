import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdParams } from '../../../shared/schemas/campaigns';
import {
  CreateUpdateInput,
  EditUpdateInput,
  PostedUpdateSchema,
  UpdateListSchema,
  UpdateParams,
  UpdateSchema,
  UpdatesQuery,
} from '../../../shared/schemas/updates';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

/** Updates to backers (issue #33 item 5): a campaign's updates, posted, edited and deleted by its owner. */
export function updatesRest(app: FastifyInstance, { updates }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/updates',
    summary: 'A page of a campaign’s updates, newest first (a backers-only update is a locked teaser to others)',
    tag: 'campaigns',
    auth: 'optional',
    errors: { 400: 'Invalid cursor', 404: 'Campaign not found' },
    params: IdParams,
    query: UpdatesQuery,
    response: UpdateListSchema,
    handler: ({ params, query, actor }) => updates.list(actor, params.id, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/updates/:updateId',
    summary: 'One update of a campaign (a locked teaser when it is for backers the caller is not among)',
    tag: 'campaigns',
    auth: 'optional',
    errors: { 404: 'Campaign or update not found' },
    params: UpdateParams,
    response: UpdateSchema,
    handler: ({ params, actor }) => updates.get(actor, params.id, params.updateId),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/updates',
    summary: 'Post an update to my campaign (emailed to its audience once)',
    tag: 'campaigns',
    auth: 'required',
    errors: {
      400: 'An image that is not my upload',
      403: 'Not the campaign’s owner',
      404: 'Campaign not found',
      429: 'Update budget spent (`Retry-After`)',
    },
    params: IdParams,
    body: CreateUpdateInput,
    response: PostedUpdateSchema,
    status: 201,
    handler: ({ params, body, actor }) => updates.create(actor, params.id, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id/updates/:updateId',
    summary: 'Edit my campaign’s update (not emailed again)',
    tag: 'campaigns',
    auth: 'required',
    errors: { 400: 'An image that is not my upload', 403: 'Not the campaign’s owner', 404: 'Campaign or update not found' },
    params: UpdateParams,
    body: EditUpdateInput,
    response: UpdateSchema,
    handler: ({ params, body, actor }) => updates.edit(actor, params.id, params.updateId, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/campaigns/:id/updates/:updateId',
    summary: 'Delete my campaign’s update',
    tag: 'campaigns',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign or update not found' },
    params: UpdateParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => updates.remove(actor, params.id, params.updateId),
  });
}
