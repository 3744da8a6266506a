import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdParams } from '../../../shared/schemas/campaigns';
import { CreateProjectInput, FollowSchema, ProjectListQuery, ProjectListSchema, ProjectSchema, UpdateProjectInput } from '../../../shared/schemas/projects';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function projectsRest(app: FastifyInstance, { projects }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/projects',
    summary: 'List and search projects',
    tag: 'projects',
    auth: 'optional',
    errors: { 401: '`my=true` while signed out' },
    query: ProjectListQuery,
    response: ProjectListSchema,
    handler: ({ query, actor }) => projects.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/projects/:id',
    summary: 'A project',
    tag: 'projects',
    auth: 'optional',
    errors: { 404: 'Project not found' },
    params: IdParams,
    response: ProjectSchema,
    handler: ({ params, actor }) => projects.get(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/projects',
    summary: 'Create a project (released at once, or a draft: `visibility`, `releaseAt`)',
    tag: 'projects',
    auth: 'required',
    errors: {
      400: 'A release time that is not in the future, or with `visibility: released`',
      403: 'The adult category needs adult access',
      429: 'Project budget spent (`Retry-After`)',
    },
    body: CreateProjectInput,
    response: ProjectSchema,
    status: 201,
    handler: ({ body, actor }) => projects.create(actor, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/projects/:id',
    summary: 'Update my project (a draft: release now, schedule, move or cancel the schedule)',
    tag: 'projects',
    auth: 'required',
    errors: {
      400: 'A released project back to draft, or a release time not in the future',
      403: 'Not the project’s owner, or the adult category without adult access',
      404: 'Project not found',
    },
    params: IdParams,
    body: UpdateProjectInput,
    response: ProjectSchema,
    handler: ({ params, body, actor }) => projects.update(actor, params.id, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/projects/:id',
    summary: 'Delete my project',
    tag: 'projects',
    auth: 'required',
    errors: { 403: 'Not the project’s owner', 404: 'Project not found' },
    params: IdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => projects.remove(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/project-follow/:id',
    summary: 'Follow a project',
    tag: 'projects',
    auth: 'required',
    errors: { 404: 'Project not found', 429: 'Follow budget spent (`Retry-After`)' },
    params: IdParams,
    response: FollowSchema,
    handler: ({ params, actor }) => projects.follow(actor, params.id, true),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/project-follow/:id',
    summary: 'Stop following a project',
    tag: 'projects',
    auth: 'required',
    errors: { 404: 'Project not found', 429: 'Follow budget spent (`Retry-After`)' },
    params: IdParams,
    response: FollowSchema,
    handler: ({ params, actor }) => projects.follow(actor, params.id, false),
  });
}
