import type { DbOrTx } from '../db/client';
import { changeHistory } from '../db/schema';

export type HistoryAction = 'create' | 'update' | 'delete';

export interface ChangeRecord {
  modelName: string;
  action: HistoryAction;
  /** The changed record's id. */
  key: string;
  /** Names of the fields that changed (never their values). */
  fields?: string[];
  actorId?: string | null;
  /** The person the record belongs to; defaults to the actor. */
  subjectUserId?: string | null;
}

/** Appends one change-history entry; call it in the same transaction as the change. */
export async function recordChange(db: DbOrTx, c: ChangeRecord): Promise<void> {
  await db.insert(changeHistory).values({
    modelName: c.modelName,
    action: c.action,
    key: c.key,
    fields: c.fields ?? [],
    actorId: c.actorId ?? null,
    subjectUserId: c.subjectUserId ?? c.actorId ?? null,
  });
}

const SECRET_FIELDS = new Set(['passwordHash', 'password', 'value', 'ciphertext', 'secretHash', 'tokenHash']);

/** The names of the fields whose values differ between `before` and `after` (only keys of `after`). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(after)) {
    if (v === undefined) continue;
    const b = before[k];
    const same = b instanceof Date && v instanceof Date ? b.getTime() === v.getTime() : JSON.stringify(b) === JSON.stringify(v);
    if (!same) out.push(SECRET_FIELDS.has(k) ? k.replace(/Hash$/, '') : k);
  }
  return out;
}
