/**
 * Where a guard sends a signed-out person back to after logging in: `/login?next=<path>`. Only a
 * path of this site is followed (never another origin, a protocol-relative `//host` or a
 * backslash trick); anything else, or no `next`, goes to `/`.
 */
export function loginPathFor(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}

/** The same-origin path (with its query and hash) `next` names, else '/'. */
export function safeReturnPath(next: string | null | undefined, origin: string): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  if (url.origin !== origin) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // back to the login page itself would be a loop
  return url.pathname === '/login' ? '/' : path;
}
