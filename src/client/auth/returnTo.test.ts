import { describe, expect, it } from 'vitest';
import { loginPathFor, safeReturnPath } from './returnTo';

const ORIGIN = 'https://kindling.example';

describe('the path a login returns to', () => {
  it('follows a path of this site, with its query and hash', () => {
    expect(safeReturnPath('/account', ORIGIN)).toBe('/account');
    expect(safeReturnPath('/disputes/new?campaignId=abc&x=1#top', ORIGIN)).toBe('/disputes/new?campaignId=abc&x=1#top');
  });

  it('goes to / without a path, for another origin, and for tricks that leave the site', () => {
    for (const next of [
      null,
      undefined,
      '',
      'account',
      'https://evil.example/account',
      '//evil.example/account',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/login',
      '/login?next=/account',
    ]) {
      expect(safeReturnPath(next, ORIGIN)).toBe('/');
    }
  });

  it('round-trips through the login link', () => {
    const link = loginPathFor('/teams/t1/manage?projectId=p 1');
    const next = new URL(link, ORIGIN).searchParams.get('next');
    expect(safeReturnPath(next, ORIGIN)).toBe('/teams/t1/manage?projectId=p%201');
  });
});
