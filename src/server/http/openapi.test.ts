import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import openapiTS from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerChecker, contractChecks } from '../../../test/contract';
import { buildTestApp, call, openTestDatabase, signUp } from '../../../test/helpers';
import { openApiPath } from './openapi';

// biome-ignore lint/suspicious/noExplicitAny: the test walks a JSON document of any shape, as a reader of it would
type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let doc: Json;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

function operations(d: Json): { key: string; op: Json; method: string; path: string }[] {
  return Object.entries(d.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json, method: method.toUpperCase(), path })),
  );
}

describe('GET /api/openapi.json', () => {
  it('describes every route registered under /api, and nothing else', () => {
    const registered = app.apiRoutes.map((r) => `${r.method} ${openApiPath(r.url)}`).sort();
    const documented = operations(doc)
      .map((o) => o.key)
      .sort();
    expect(registered.length).toBeGreaterThan(80);
    expect(new Set(registered).size).toBe(registered.length);
    expect(documented).toEqual(registered);
    // the routes outside the zod adapter are there too
    expect(documented).toContain('POST /api/payments/webhooks/{provider}');
    expect(documented).toContain('POST /api/upload/avatar');
    expect(documented).toContain('GET /api/docs');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives each call its summary, tag, security and failures', () => {
    const tags = new Set((doc.tags as { name: string }[]).map((t) => t.name));
    for (const { key, op, method } of operations(doc)) {
      expect(op.summary, key).toMatch(/\S/);
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.tags, key).toHaveLength(1);
      expect(tags.has(op.tags[0]), key).toBe(true);
      expect(Array.isArray(op.security), key).toBe(true);
      expect(op.responses.default.content['application/json'].schema, key).toEqual({ $ref: '#/components/schemas/Error' });
      const signedIn = (op.security as Json[]).length > 0 && !(op.security as Json[]).some((s) => Object.keys(s).length === 0);
      if (signedIn) expect(op.responses['401'], `${key} needs a session: 401`).toBeDefined();
      if (op.parameters?.length || op.requestBody?.content?.['application/json']) expect(op.responses['400'], `${key} reads input: 400`).toBeDefined();
      if (method !== 'GET' && !op.requestBody?.content?.['*/*']) expect(op.responses['403'], `${key} is a write: 403`).toBeDefined();
      for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) >= 400) expect(answer.content['application/json'].schema, `${key} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    expect(doc.components.securitySchemes.cookieAuth).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'session' });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // a signed-in call and an admin call, as examples
    expect(doc.paths['/api/campaigns'].post.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }]);
    expect(doc.paths['/api/campaigns'].get.security).toEqual([{}, { cookieAuth: [] }, { bearerAuth: [] }]);
    expect(doc.paths['/api/admin/cron/run'].post.responses['409']).toBeDefined();
    expect(doc.paths['/api/campaigns/{id}/comments'].post.responses['429']).toBeDefined();
  });

  it("describes the lists' discover parameters: category, status and sort", () => {
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: Json) => p.name === name);
    for (const name of ['q', 'page', 'limit', 'cursor', 'type', 'status', 'sort']) expect(param('/api/campaigns', name), name).toBeDefined();
    expect(JSON.stringify(param('/api/campaigns', 'sort').schema)).toContain('funded');
    expect(JSON.stringify(param('/api/campaigns', 'status').schema)).toContain('past');
    expect(JSON.stringify(param('/api/campaigns', 'type').schema)).toContain('music');
    expect(JSON.stringify(param('/api/projects', 'sort').schema)).toContain('supported');
    expect(param('/api/projects', 'type')).toBeDefined();
  });

  it('describes the CSV downloads, the webhook, the uploads and the paging headers', () => {
    const supporters = doc.paths['/api/campaigns/{id}/supporters'].get;
    expect(Object.keys(supporters.responses['200'].content).sort()).toEqual(['application/json', 'text/csv']);
    expect(supporters.parameters.find((p: Json) => p.name === 'format').schema.enum).toContain('csv');
    expect(Object.keys(doc.paths['/api/campaigns/{id}/donations'].get.responses['200'].content)).toContain('text/csv');

    const webhook = doc.paths['/api/payments/webhooks/{provider}'].post;
    expect(webhook.security).toEqual([]);
    expect(webhook.parameters).toEqual([{ name: 'provider', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(webhook.requestBody.content['*/*']).toBeDefined();
    expect(webhook.responses['200'].content['application/json'].schema.properties.received).toBeDefined();

    const upload = doc.paths['/api/upload/campaign/multi'].post;
    expect(upload.requestBody.content['multipart/form-data'].schema.properties.files.type).toBe('array');
    expect(upload.responses['413']).toBeDefined();

    expect(doc.paths['/api/campaigns/{id}/donations'].post.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }),
    );
    expect(Object.keys(doc.paths['/api/user/supported'].get.responses['200'].headers)).toEqual(['X-Next-Cursor', 'Link']);
    expect(Object.keys(doc.paths['/api/campaigns/{id}/support'].post.responses)).toEqual(expect.arrayContaining(['201', '202']));
  });

  it('is read by an outside tool: Redocly’s linter finds no error in it', async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-server-example.com': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    // the warnings left are about the spec's own choices: no licence (a private app), paths the
    // specification names that look alike (/campaigns/{id}/comments, /campaigns/verify-guest/{token}),
    // and the calls that cannot fail but for the door's own failures (`default`)
    const warned = new Set(problems.map((p) => p.ruleId));
    expect([...warned].filter((rule) => !['info-license', 'no-ambiguous-paths', 'operation-4xx-response'].includes(rule))).toEqual([]);
    const no4xx = problems.filter((p) => p.ruleId === 'operation-4xx-response').map((p) => p.location[0]?.pointer);
    expect(no4xx.sort()).toEqual([
      '#/paths/~1api~1docs/get/responses',
      '#/paths/~1api~1openapi.json/get/responses',
      '#/paths/~1api~1payments~1info/get/responses',
    ]);
  });
});

describe('a client generator', () => {
  it('openapi-typescript turns the document into types that compile and name every call', async () => {
    const types = await openapiTS(doc as never);
    for (const { path: p, method } of operations(doc)) {
      expect(types, p).toContain(`"${p}": {`);
      expect(types, `${method} ${p}`).toMatch(new RegExp(`operations\\["${doc.paths[p][method.toLowerCase()].operationId}"\\]`));
    }
    // the generated types compile, and a client's use of them type-checks against the answers
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-openapi-'));
    try {
      writeFileSync(path.join(dir, 'api.ts'), types);
      writeFileSync(
        path.join(dir, 'use.ts'),
        [
          "import type { paths } from './api';",
          "type Campaigns = paths['/api/campaigns']['get']['responses'][200]['content']['application/json'];",
          'export const titles = (page: Campaigns): string[] => page.items.map((c) => c.title);',
          "type Failure = paths['/api/campaigns/{id}']['get']['responses'][404]['content']['application/json'];",
          'export const message = (f: Failure): string => f.error;',
          '',
        ].join('\n'),
      );
      const tsc = path.join(process.cwd(), 'node_modules', '.bin', 'tsc');
      const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', path.join(dir, 'use.ts')];
      // run from the generated files' own directory: the project's tsconfig.json is not theirs
      const result = await promisify(execFile)(tsc, args, { cwd: dir }).then(
        () => '',
        (err: { stdout?: string; message: string }) => err.stdout || err.message,
      );
      expect(result).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the contract check of the tests (test/contract.ts)', () => {
  it('held this file’s answers against the document', async () => {
    const before = contractChecks(app);
    const me = await signUp(app);
    const res = await call(app, me, { method: 'POST', url: '/api/campaigns', payload: { title: 'Checked' } });
    expect(res.statusCode).toBe(201);
    // register, login, the campaign: each answer was checked
    expect(contractChecks(app) - before).toBeGreaterThanOrEqual(3);
  });

  it('refuses an answer the document does not allow', () => {
    const checker = answerChecker(doc);
    const answer = (status: number, body: unknown, contentType = 'application/json; charset=utf-8', url = '/api/campaigns/abc', method = 'GET') => ({
      method,
      url,
      status,
      contentType,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(checker.check(answer(404, { error: 'Campaign not found' }))).toBeNull();
    // a field of the wrong type, an answer missing its fields
    expect(checker.check(answer(404, { error: 42 }))).toMatch(/does not allow/);
    expect(checker.check(answer(200, { _id: 'x' }))).toMatch(/does not allow/);
    // a status the route does not declare, a content type it does not answer, a route that does not exist
    expect(checker.check(answer(409, { error: 'x' }))).toMatch(/does not declare/);
    expect(checker.check(answer(200, 'a,b', 'text/csv'))).toMatch(/as text\/csv/);
    expect(checker.check(answer(200, { items: [] }, undefined, '/api/nowhere/1'))).toMatch(/no such operation/);
    // the CSV download is declared for the supporters list, and the 'mine' list wins over '{id}'
    expect(checker.check(answer(200, 'name\n', 'text/csv; charset=utf-8', '/api/campaigns/abc/supporters?format=csv'))).toBeNull();
    expect(checker.check(answer(200, [], undefined, '/api/subscriptions/mine'))).toBeNull();
  });
});

describe('GET /api/docs', () => {
  it('serves the reference page and its files from this origin, under the app’s Content-Security-Policy', async () => {
    const page = await app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    const srcs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    // the app's own icon (served with the built client), then the page's files
    expect(srcs).toEqual([
      '/favicon.svg',
      '/api/docs/swagger-ui.css',
      '/api/docs/page.css',
      '/api/openapi.json',
      '/api/docs/swagger-ui-bundle.js',
      '/api/docs/init.js',
    ]);
    expect(page.body).not.toMatch(/<script>|<style|style="/);
    for (const src of srcs.slice(1)) {
      const file = await app.inject({ method: 'GET', url: src });
      expect(file.statusCode, src).toBe(200);
      expect(file.body.length, src).toBeGreaterThan(10);
    }
    const missing = await app.inject({ method: 'GET', url: '/api/docs/secret.txt' });
    expect(missing.statusCode).toBe(404);
  });
});
