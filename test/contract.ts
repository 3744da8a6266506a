import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * The API contract, held against every answer the tests see: each answer of the REST door
 * (a path under /api) must be one the OpenAPI document (`GET /api/openapi.json`) declares for
 * that route and status, in a declared content type, and a JSON answer must validate against
 * the document's schema for it (JSON Schema 2020-12, ajv). A mismatch fails the call that got
 * it, so the document cannot drift from the code. `buildTestApp` and every test that builds an
 * app of its own pass it through `checkContract`.
 */

type Json = Record<string, unknown>;

/** Failures of the door itself, which the document puts under each operation's `default`. */
const DOOR_FAILURES = new Set([408, 413, 414, 415, 429, 500]);

interface Operation {
  method: string;
  path: string;
  segments: string[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** `~` and `/` escaped for a JSON pointer, then made safe in a URI fragment. */
const pointerSegment = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

export interface AnswerChecker {
  /** The problem with this answer, or null when the document allows it. */
  check(answer: { method: string; url: string; status: number; contentType: string | undefined; body: string }): string | null;
}

/** Checks answers against one OpenAPI document. */
export function answerChecker(doc: Json): AnswerChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const validators = new Map<string, ValidateFunction>();
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      operations.push({ method: method.toUpperCase(), path, segments: path.split('/'), responses: op.responses as Operation['responses'] });
    }
  }

  /** The operation of a concrete path; a static segment wins over a parameter, as in the router. */
  function find(method: string, pathname: string): Operation | undefined {
    const parts = pathname.split('/');
    let best: { op: Operation; rank: string } | undefined;
    for (const op of operations) {
      if (op.method !== method || op.segments.length !== parts.length) continue;
      let rank = '';
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = op.segments[i];
        // the router gives a parameter an empty value too (`/verify-email/` reaches `/verify-email/:token`)
        if (seg.startsWith('{') && seg.endsWith('}')) rank += '1';
        else if (seg === parts[i]) rank += '0';
        else ok = false;
      }
      if (ok && (!best || rank < best.rank)) best = { op, rank };
    }
    return best?.op;
  }

  function validator(op: Operation, key: string): ValidateFunction {
    const ref = ['paths', op.path, op.method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema'].map(pointerSegment).join('/');
    let v = validators.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: `openapi.json#/${ref}` });
      validators.set(ref, v);
    }
    return v;
  }

  return {
    check({ method, url, status, contentType, body }) {
      // as sent: a parameter matches any segment, and static segments need no decoding
      const pathname = url.split('?')[0];
      const op = find(method, pathname);
      const where = `${method} ${pathname}`;
      if (!op) {
        // the not-found answer of a path no route has
        return status === 404 ? null : `${where} answered ${status} but the document has no such operation`;
      }
      let key = String(status);
      if (!op.responses[key]) {
        if (!DOOR_FAILURES.has(status)) return `${method} ${op.path} answered ${status}, which the document does not declare: ${body.slice(0, 200)}`;
        key = 'default';
      }
      const content = op.responses[key].content;
      if (!content) return body.length === 0 ? null : `${method} ${op.path} answered ${status} with a body where the document declares none`;
      const type = contentType?.split(';')[0].trim().toLowerCase() ?? '';
      if (!(type in content) && !('*/*' in content)) {
        return `${method} ${op.path} answered ${status} as ${type || 'no content type'}; the document declares ${Object.keys(content).join(', ')}`;
      }
      if (type !== 'application/json') return null;
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return `${method} ${op.path} answered ${status} with a body that is not JSON`;
      }
      const validate = validator(op, key);
      if (!validate(value)) {
        return `${method} ${op.path} answered ${status} with a body the document does not allow: ${ajv.errorsText(validate.errors)}; body: ${body.slice(0, 300)}`;
      }
      return null;
    },
  };
}

/** How many answers of an app were held against the document (a test checks it is not zero). */
const stats = new WeakMap<FastifyInstance, { checked: number }>();
export function contractChecks(app: FastifyInstance): number {
  return stats.get(app)?.checked ?? 0;
}

/**
 * Holds every answer `app.inject` gives under /api against the app's own OpenAPI document;
 * an answer the document does not allow rejects the call with the reason.
 */
export function checkContract(app: FastifyInstance): FastifyInstance {
  const inject = app.inject.bind(app) as (opts: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const counter = { checked: 0 };
  stats.set(app, counter);
  let checker: Promise<AnswerChecker> | undefined;
  const load = async () => {
    const res = await inject({ method: 'GET', url: '/api/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return answerChecker(res.json() as Json);
  };
  const checked = async (opts: InjectOptions | string): Promise<LightMyRequestResponse> => {
    const res = await inject(opts);
    const o = typeof opts === 'string' ? { url: opts, method: 'GET' } : opts;
    const url = typeof o.url === 'string' ? o.url : String(o.path ?? '');
    const method = String(o.method ?? 'GET').toUpperCase();
    if (!url.startsWith('/api/') || method === 'HEAD' || method === 'OPTIONS') return res;
    checker ??= load();
    const problem = (await checker).check({
      method,
      url,
      status: res.statusCode,
      contentType: res.headers['content-type'] as string | undefined,
      body: res.body,
    });
    if (problem) throw new Error(`API contract: ${problem}`);
    counter.checked += 1;
    return res;
  };
  // the chain form (no options) is left as it is; the tests use the promise and callback forms
  app.inject = ((opts?: InjectOptions | string, cb?: (err: Error | null, res?: LightMyRequestResponse) => void) => {
    if (opts === undefined) return (inject as unknown as () => unknown)();
    if (cb) {
      checked(opts).then(
        (res) => cb(null, res),
        (err: Error) => cb(err),
      );
      return undefined;
    }
    return checked(opts);
  }) as never;
  return app;
}
