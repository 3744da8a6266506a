import type { FastifyInstance } from 'fastify';
import { isApiUrl } from './security';

/**
 * The headers of every answer that shows a draft (issue #30): kept by no cache, not even the
 * browser's (`private, no-store`), indexed by no search engine, and its address sent to no other
 * site. A draft's page sets them itself (client-app.ts); a draft's image has its own gate
 * (modules/previews/images.ts).
 */
export const DRAFT_HEADERS = {
  'cache-control': 'private, no-store',
  'x-robots-tag': 'noindex',
  'referrer-policy': 'no-referrer',
} as const;

/**
 * Whether an API answer's JSON shows a draft: an item whose `visibility` is `draft` or `scheduled`
 * (the campaigns' and projects' own field, on both doors: REST's plain JSON and tRPC's superjson,
 * whose `json` holds the same object). A text field that merely contains these words cannot match:
 * inside a JSON string its quotes are escaped (`\"visibility\":\"draft\"`).
 */
const SHOWS_DRAFT = /"visibility":\s*"(?:draft|scheduled)"/;

export function showsDraft(json: string): boolean {
  return json.includes('"visibility"') && SHOWS_DRAFT.test(json);
}

/** A fetch `Response` (what tRPC's own Fastify handler sends: trpc/http.ts, `official`). */
function isFetchResponse(payload: unknown): payload is Response {
  return typeof payload === 'object' && payload !== null && Object.prototype.toString.call(payload) === '[object Response]';
}

/** The JSON text of an answer about to be sent, when it is JSON held whole (not a stream). */
async function jsonText(payload: unknown, contentType: unknown): Promise<string | null> {
  if (isFetchResponse(payload)) {
    // tRPC's answers are built whole (`new Response(JSON.stringify(...))`); a streamed one (JSON
    // lines, events) is not read here. A copy is read: the answer itself goes out untouched.
    if (!/^application\/json\b/i.test(payload.headers.get('content-type') ?? '') || !payload.body) return null;
    return payload.clone().text();
  }
  if (typeof contentType !== 'string' || !/^application\/json\b/i.test(contentType)) return null;
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return null;
}

/**
 * Every answer of the two API doors (/api and /trpc) whose JSON shows a draft (the owner's own
 * list, a circle member's detail, an update's answer...) carries DRAFT_HEADERS, set here in one
 * place rather than in each route: an `onSend` hook reads the serialized answer (REST: the JSON
 * its schema wrote; tRPC: the text our direct reads wrote, or a copy of the `Response` tRPC's
 * handler built) and looks for a draft's `visibility`. Answers that show none keep the API's
 * `Cache-Control: no-store` (security.ts) and no `X-Robots-Tag`.
 *
 * It is registered before the API routes and before compression (app.ts), so that every API
 * route has it and it reads the JSON before it is compressed. Answers that are not JSON (CSV
 * exports, files) and streamed ones (tRPC's JSON lines, which the app's client does not ask for)
 * are not read.
 */
export function registerDraftHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (!isApiUrl(req.url)) return payload;
    const text = await jsonText(payload, reply.getHeader('content-type'));
    if (text !== null && showsDraft(text)) reply.headers(DRAFT_HEADERS);
    return payload;
  });
}
