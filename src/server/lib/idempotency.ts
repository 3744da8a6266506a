/**
 * Stored idempotency keys, in two namespaces that can never meet. A client's key (letters,
 * digits, `-` and `_` only: IdempotencyKeySchema) is kept for the one who sent it, so one donor's
 * key is nobody else's and nobody can take a key another will use; a key the server makes for
 * its own work (a monthly charge) lives apart from every client's.
 */

/** Who a client's key belongs to: an account, or a guest by their (lower-cased) email. */
export type KeyOwner = { userId: string } | { guestEmail: string };

/** A client's key as stored: `client:u:<account>:<key>` or `client:e:<guest email>:<key>`. */
export function clientKey(owner: KeyOwner, key: string): string {
  return 'userId' in owner ? `client:u:${owner.userId}:${key}` : `client:e:${owner.guestEmail}:${key}`;
}

/** A key the server makes for its own work: `server:<name>`. */
export function serverKey(name: string): string {
  return `server:${name}`;
}
