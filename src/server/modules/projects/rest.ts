import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdParams } from '../../../shared/schemas/campaigns';
import {
  CreateProjectInput,
  FollowSchema,
  ProjectListQuery,
  ProjectListSchema,
  ProjectSchema,
  UpdateProjectInput,
} from '../../../shared/schemas/projects';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function projectsRest(app: FastifyInstance, { projects }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/projects',
    query: ProjectListQuery,
    response: ProjectListSchema,
    handler: ({ query, actor }) => projects.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/projects/:id',
    params: IdParams,
    response: ProjectSchema,
    handler: ({ params, actor }) => projects.get(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/projects',
    body: CreateProjectInput,
    response: ProjectSchema,
    status: 201,
    handler: ({ body, actor }) => projects.create(actor, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/projects/:id',
    params: IdParams,
    body: UpdateProjectInput,
    response: ProjectSchema,
    handler: ({ params, body, actor }) => projects.update(actor, params.id, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/projects/:id',
    params: IdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => projects.remove(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/project-follow/:id',
    params: IdParams,
    response: FollowSchema,
    handler: ({ params, actor }) => projects.follow(actor, params.id, true),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/project-follow/:id',
    params: IdParams,
    response: FollowSchema,
    handler: ({ params, actor }) => projects.follow(actor, params.id, false),
  });
}
