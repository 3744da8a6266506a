const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else names nothing (a 404 for the caller, never a 500). */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID.test(v);
}
