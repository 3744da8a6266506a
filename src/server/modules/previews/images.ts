import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { readReadSession } from '../../http/request-auth';
import { canSeeItem, isOwner, mayHoldCircleGrant } from '../../lib/access';
import { UPLOADS_URL_PREFIX } from '../../storage/storage';
import { circleGrant } from './grant';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the answer is an image of a draft: kept by nobody but the browser, never indexed. */
    draftImage?: boolean;
  }
}

interface DraftRef {
  kind: 'campaign' | 'project';
  id: string;
  type: string;
  owner_id: string;
}

/**
 * The images of a draft are served only through the access rule (issue #30): an uploaded file
 * that a draft shows (its cover or its gallery) is answered to whoever may see one of those
 * drafts (its owner, its circle: lib/access.ts `canSeeItem` with their grant) and to nobody else,
 * who gets exactly what a missing file gets. When the circle loses its access ("Revoke all", a
 * revoked member or link), the image's address stops working for them with it. An answer with a
 * draft's image is `private, no-store`, `noindex` and sends no referrer. Images of released items,
 * of teams and people, and uploads not yet placed on anything stay public (their keys are random).
 */
export function registerDraftImageGate(app: FastifyInstance, deps: Deps): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith(UPLOADS_URL_PREFIX) || (req.method !== 'GET' && req.method !== 'HEAD')) return;
    const url = req.url.split(/[?#]/, 1)[0];
    const refs = rowsOf<DraftRef>(
      await deps.db.execute(sql`
        select 'campaign' as kind, id, type, owner_id from campaigns
         where released_at is null and (image_url = ${url} or images @> jsonb_build_array(jsonb_build_object('url', ${url}::text)))
        union all
        select 'project' as kind, id, type, owner_id from projects
         where released_at is null and (image_url = ${url} or images @> jsonb_build_array(jsonb_build_object('url', ${url}::text)))`),
    );
    if (!refs.length) return;
    await readReadSession(req, reply, deps);
    const actor = req.actor;
    let allowed = false;
    for (const ref of refs) {
      const item = { type: ref.type, ownerId: ref.owner_id, releasedAt: null };
      const grant = !isOwner(actor.user, ref.owner_id) && mayHoldCircleGrant(actor) ? await circleGrant(deps, actor, ref.kind, ref.id) : null;
      if (canSeeItem(actor, item, grant)) {
        allowed = true;
        break;
      }
    }
    if (!allowed) return reply.callNotFound();
    req.draftImage = true;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.draftImage) {
      reply.header('cache-control', 'private, no-store').header('x-robots-tag', 'noindex').header('referrer-policy', 'no-referrer');
    }
    return payload;
  });
}
