import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * lib/access.ts is the one place who may act and who sees what are spelled. This reads every
 * TypeScript file under src/server (but access.ts itself and the tests; the SQL of migrations is
 * not TypeScript and is not read) and fails on any other spelling of those rules: a category
 * compared with 'adult', the adult flag read, the admin test or the admin role spelled, an owner
 * compared with the caller, canSeeAdult used to hide something, or a local requireAdmin.
 */

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const RULES: Record<string, { pattern: RegExp; allowedIn?: string[] }> = {
  "a category compared with 'adult' (canSeeItem / itemVisibleSql / audienceOf)": {
    pattern: /type['"]?\)?\s*(===|!==|==|!=|<>|=)\s*'adult'|'adult'\s*(===|!==|==|!=|<>|=)\s*[\w.]*type\b|\b(ne|eq)\([^()]*type,\s*'adult'\)/i,
  },
  'the adult flag read (canSeeItem, audiencesSeen, assertCategoryAllowed)': {
    pattern: /\.hasAdultAccess\b/,
    // the account's own answer, and granting the flag
    allowedIn: ['modules/users/dto.ts', 'modules/users/admin-grant.ts'],
  },
  'isAdmin( (requireAdmin, isOwnerOrAdmin, isAdminAccount)': {
    pattern: /\bisAdmin\(/,
    // tRPC's adminProcedure
    allowedIn: ['trpc/init.ts'],
  },
  'the admin role spelled (isAdminAccount, adminAccountSql)': {
    pattern: /\.role\}?['"]?\s*(===|==|=)\s*'admin'|is_admin\s+or\b/i,
  },
  'an owner compared with the caller (isOwner, isOwnerOrAdmin, requireOwner, requireOwnerOrAdmin)': {
    pattern: /ownerId\s*[!=]==?\s*(actor\.)?user\??\.id\b|\buser\??\.id\s*[!=]==?\s*[\w.?]*ownerId\b/i,
  },
  'canSeeAdult( used to hide something (canSeeItem, itemVisibleSql, viewerOf)': {
    pattern: /\bcanSeeAdult\(/,
  },
  'a local requireUser / requireAdmin / requireOwner': {
    pattern: /function\s+require(Admin|User|Owner)\b/,
  },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the access rules have one spelling', () => {
  const files = sourceFiles(SERVER)
    .map((f) => path.relative(SERVER, f).split(path.sep).join('/'))
    .filter((f) => f !== 'lib/access.ts');

  it('reads the server', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('modules/teams/dto.ts');
  });

  it('finds no other spelling of who may act or who sees what', () => {
    const found: string[] = [];
    for (const file of files) {
      const lines = readFileSync(path.join(SERVER, file), 'utf8').split('\n');
      for (const [name, rule] of Object.entries(RULES)) {
        if (rule.allowedIn?.includes(file)) continue;
        lines.forEach((line, i) => {
          if (rule.pattern.test(line)) found.push(`${file}:${i + 1}: ${name}: ${line.trim()}`);
        });
      }
    }
    expect(found).toEqual([]);
  });

  it('catches the spellings it is meant to', () => {
    const caught = (line: string) => Object.entries(RULES).filter(([, r]) => r.pattern.test(line)).length;
    for (const line of [
      "if (p.type === 'adult' && !canSeeAdult(actor)) throw notFound(M.projectNotFound);",
      "const hide = r.projectType === 'adult';",
      "return canSeeAdult(actor) ? where : and(where, ne(table.type, 'adult'));",
      "where c.id = $1::uuid and ($2::boolean or c.type <> 'adult')",
      'if (!user.hasAdultAccess) return;',
      'if (c.ownerId !== user.id && !isAdmin(user)) throw forbidden(M.notOwner);',
      'const owner = actor.user?.id === row.ownerId;',
      "isAdmin: u.isAdmin || u.role === 'admin',",
      "where (users.is_admin or users.role = 'admin')",
      'function requireAdmin(actor: Actor) {',
    ]) {
      expect({ line, caught: caught(line) > 0 }).toEqual({ line, caught: true });
    }
    // and leaves alone what is no such rule
    for (const line of ["type: 'adult',", "if (role === 'admin') conds.push(adminSql);", 'if (!isOwner(user, team.ownerId)) {', 'hasAdultAccess: boolean;']) {
      expect({ line, caught: caught(line) }).toEqual({ line, caught: 0 });
    }
  });
});
