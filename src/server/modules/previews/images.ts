import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { readReadSession } from '../../http/request-auth';
import { backerSql, canSeeItem, canSeeUpdate, isOwner, isOwnerOrAdmin, isUpdateOpenToAll, mayHoldCircleGrant, viewerOf } from '../../lib/access';
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

/** A row of the gate's one statement: a draft that shows the file, or an update that does. */
interface ShownOn {
  kind: 'campaign' | 'project' | 'update';
  id: string;
  type: string;
  owner_id: string;
  campaign_id: string | null;
  audience: string | null;
  released_at: Date | null;
}

/** An update (issue #33) a file is a picture of, with its campaign. */
interface UpdateRef {
  campaign_id: string;
  audience: 'public' | 'backers';
  type: string;
  owner_id: string;
  released_at: Date | null;
}

/**
 * The images of a draft are served only through the access rule (issue #30): an uploaded file
 * that a draft shows (its cover or its gallery) is answered to whoever may see one of those
 * drafts (its owner, its circle: lib/access.ts `canSeeItem` with their grant) and to nobody else,
 * who gets exactly what a missing file gets. When the circle loses its access ("Revoke all", a
 * revoked member or link), the image's address stops working for them with it. An answer with a
 * draft's image is `private, no-store`, `noindex` and sends no referrer. Images of released items,
 * of teams and people, and uploads not yet placed on anything stay public (their keys are random).
 * So do the pictures of an update for backers only, or of a draft's update (lib/access.ts
 * `canSeeUpdate`): the owner, admins and the campaign's backers get them, anyone else the missing
 * file's answer, unless a public update of a released campaign shows the same file.
 */
const firstBacker = (result: unknown) => rowsOf<{ backer: boolean }>(result)[0]?.backer === true;

export function registerDraftImageGate(app: FastifyInstance, deps: Deps): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith(UPLOADS_URL_PREFIX) || (req.method !== 'GET' && req.method !== 'HEAD')) return;
    const url = req.url.split(/[?#]/, 1)[0];
    const shows = sql`jsonb_build_array(jsonb_build_object('url', ${url}::text))`;
    // the drafts and the updates that show the file, in one round trip for every image asked for
    // (each branch answered by its own index: the items' image columns, campaign_updates_images_idx)
    const rows = rowsOf<ShownOn>(
      await deps.db.execute(sql`
        select 'campaign' as kind, id, type, owner_id, null::uuid as campaign_id, null::text as audience, null::timestamptz as released_at from campaigns
         where released_at is null and (image_url = ${url} or images @> ${shows})
        union all
        select 'project' as kind, id, type, owner_id, null, null, null from projects
         where released_at is null and (image_url = ${url} or images @> ${shows})
        union all
        select 'update' as kind, u.id, c.type, c.owner_id, u.campaign_id, u.audience::text, c.released_at from campaign_updates u join campaigns c on c.id = u.campaign_id
         where u.images @> ${shows}`),
    );
    const refs: DraftRef[] = rows.filter((r): r is ShownOn & DraftRef => r.kind !== 'update');
    const updates: UpdateRef[] = rows
      .filter((r) => r.kind === 'update')
      .map((r) => ({
        campaign_id: r.campaign_id as string,
        audience: r.audience as UpdateRef['audience'],
        type: r.type,
        owner_id: r.owner_id,
        released_at: r.released_at,
      }));
    const gatedUpdates = updates.some((u) => isUpdateOpenToAll({ audience: u.audience, releasedAt: u.released_at })) ? [] : updates;
    if (!refs.length && !gatedUpdates.length) return;
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
    for (const u of allowed ? [] : gatedUpdates) {
      const campaign = { type: u.type, ownerId: u.owner_id, releasedAt: u.released_at };
      const mayAsk = u.audience === 'backers' && !isOwnerOrAdmin(actor.user, u.owner_id) && canSeeItem(actor, campaign);
      const backer = mayAsk && firstBacker(await deps.db.execute(sql`select ${backerSql(viewerOf(actor), sql`${u.campaign_id}::uuid`)} as backer`));
      if (canSeeUpdate(actor, campaign, u, backer)) {
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
