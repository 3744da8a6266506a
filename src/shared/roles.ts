/** Admin means the isAdmin flag or role 'admin' (case-insensitive). Kept free of zod for the first page load. */
export function isAdmin(u: { isAdmin?: boolean | null; role?: string | null } | null | undefined): boolean {
  if (!u) return false;
  return u.isAdmin === true || (u.role ?? '').toLowerCase() === 'admin';
}
