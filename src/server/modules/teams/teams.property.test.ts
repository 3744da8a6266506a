import { and, asc, count, eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, changeHistory, sessions, teamMembers, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { AppError } from '../../lib/errors';
import { buildTestApp, call, openTestDatabase, signUp } from '../../../../test/helpers';

/**
 * Random sequences of membership steps by random people, applied through the service (and
 * now and then through REST). A small reference model of decisions.md "Teams" predicts each
 * step's answer and the rows after it; after every step the database is read and checked:
 *   - the owner has exactly one row, active and manager;
 *   - every person has at most one row in the team;
 *   - the member count the API reports equals the number of active rows;
 *   - a refused step changed nothing (rows, their timestamps, the history);
 *   - an allowed step wrote exactly one history entry when it changed something, none otherwise;
 *   - the rows are what the model says.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
const N = 5;
let people: { userId: string; email: string; username: string; token: string; ip: string; actor: Actor }[];

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  const made = await Promise.all(Array.from({ length: N }, (_, i) => signUp(app, { username: `prop_${i}` }).then((p) => ({ ...p, username: `prop_${i}` }))));
  people = [];
  for (const p of made) {
    const [user] = await database.db.select().from(users).where(eq(users.id, p.userId));
    const [session] = await database.db.select().from(sessions).where(eq(sessions.userId, p.userId)).limit(1);
    people.push({ ...p, actor: { user, session, ip: p.ip } });
  }
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

type Role = 'member' | 'manager';
type Status = 'invited' | 'requested' | 'active';
/** A person by index, or someone currently in a state (resolved against the model when the step runs). */
type Pick = number | { pick: Status; n: number };
type Who = 'owner' | 'anon' | Pick;
type Door = 'service' | 'rest';
type Step =
  | { kind: 'invite'; actor: Who; target: Pick; by: 'username' | 'email' | 'userId' | 'ghost'; role: Role; status: 'invited' | 'active'; door: Door }
  | { kind: 'request' | 'accept' | 'leave'; actor: Who; door: Door }
  | { kind: 'remove' | 'acceptRequest'; actor: Who; target: Pick; door: Door }
  | { kind: 'setRole'; actor: Who; target: Pick; role: Role; door: Door }
  | { kind: 'block'; a: number; b: number };

const person = fc.integer({ min: 0, max: N - 1 });
const pick: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 1, arbitrary: person },
  { weight: 1, arbitrary: fc.record({ pick: fc.constantFrom<Status>('invited', 'requested', 'active'), n: fc.nat({ max: 100 }) }) },
);
const who: fc.Arbitrary<Who> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('owner' as const) },
  { weight: 6, arbitrary: pick },
  { weight: 1, arbitrary: fc.constant('anon' as const) },
);
/** Steps that only make sense for some people are tried mostly by them (and now and then by anyone). */
const inviter: fc.Arbitrary<Who> = fc.oneof(
  { weight: 5, arbitrary: fc.constant('owner' as const) },
  { weight: 2, arbitrary: fc.record({ pick: fc.constant<Status>('active'), n: fc.nat({ max: 100 }) }) },
  { weight: 3, arbitrary: who },
);
const invitedPerson: fc.Arbitrary<Who> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ pick: fc.constant<Status>('invited'), n: fc.nat({ max: 100 }) }) },
  { weight: 1, arbitrary: who },
);
const role = fc.constantFrom<Role>('member', 'manager');
const door = fc.constantFrom<Door>('service', 'service', 'service', 'service', 'rest');
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('invite' as const),
      actor: inviter,
      target: pick,
      by: fc.constantFrom('username', 'email', 'userId', 'ghost'),
      role,
      status: fc.constantFrom('invited', 'active'),
      door,
    }) as fc.Arbitrary<Step>,
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('request' as const), actor: who, door }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('accept' as const), actor: invitedPerson, door }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('leave' as const), actor: who, door }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), actor: who, target: pick, door }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setRole' as const), actor: who, target: pick, role, door }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('acceptRequest' as const), actor: who, target: pick, door }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('block' as const), a: person, b: person }) },
);

// --- the reference model -----------------------------------------------------------------

type Model = { owner: number; rows: Map<number, { status: Status; role: Role }>; blocks: Set<string> };
/** A pick as a person: someone (not the owner) in that state if there is one, else an index. */
function resolve(m: Model, p: Pick): number {
  if (typeof p === 'number') return p;
  const inState = [...m.rows].filter(([i, r]) => r.status === p.pick && i !== m.owner).map(([i]) => i);
  return inState.length ? inState[p.n % inState.length] : p.n % N;
}
type Resolved = Exclude<Step, { kind: 'block' }> & { target?: number };
const blocked = (m: Model, a: number, b: number) => m.blocks.has(`${a}>${b}`) || m.blocks.has(`${b}>${a}`);

/** The answer the rules give (HTTP status) and the rows after the step. */
function expected(m: Model, s: Step & { target?: number }, actor: number | null): number {
  const O = m.owner;
  const row = (i: number) => m.rows.get(i);
  if (s.kind === 'block') return 200;
  if (actor === null) return 401;
  const A = actor;
  switch (s.kind) {
    case 'invite': {
      if (A !== O) {
        const mine = row(A);
        if (mine?.status !== 'active' || mine.role !== 'manager') return 403;
        if (s.status === 'active' || s.role === 'manager') return 403;
      }
      if (s.by === 'ghost') return 404;
      const T = s.target!;
      if (blocked(m, T, A) || blocked(m, T, O)) return 403;
      const r = row(T);
      if (r && r.status !== 'requested') return 409;
      m.rows.set(T, r ? { status: 'active', role: s.role } : { status: s.status, role: s.role });
      return 201;
    }
    case 'request': {
      if (A === O) return 409;
      if (blocked(m, A, O)) return 403;
      const r = row(A);
      if (r && r.status !== 'invited') return 409;
      m.rows.set(A, r ? { ...r, status: 'active' } : { status: 'requested', role: 'member' });
      return 201;
    }
    case 'accept': {
      const r = row(A);
      if (r?.status === 'active') return 409;
      if (r?.status === 'requested') return 409;
      if (r?.status !== 'invited') return 404;
      if (blocked(m, A, O)) return 403;
      m.rows.set(A, { ...r, status: 'active' });
      return 200;
    }
    case 'leave': {
      if (A === O) return 403;
      if (!row(A)) return 404;
      m.rows.delete(A);
      return 204;
    }
    case 'remove': {
      if (A !== O) return 403;
      if (s.target === O) return 403;
      if (!row(s.target!)) return 404;
      m.rows.delete(s.target!);
      return 204;
    }
    case 'setRole': {
      if (A !== O) return 403;
      if (s.target === O) return 403;
      const r = row(s.target!);
      if (!r) return 404;
      m.rows.set(s.target!, { ...r, role: s.role });
      return 200;
    }
    case 'acceptRequest': {
      if (A !== O) return 403;
      if (s.target === O) return 403;
      const r = row(s.target!);
      if (!r) return 404;
      if (r.status === 'invited') return 409;
      m.rows.set(s.target!, { ...r, status: 'active' });
      return 200;
    }
  }
}

// --- applying a step ---------------------------------------------------------------------

const anon: Actor = { user: null, session: null, ip: '127.0.0.1' };

async function apply(teamId: string, s: Resolved, actor: number | null): Promise<number> {
  const svc = app.services.teams;
  const me = actor === null ? null : people[actor];
  const target = s.target === undefined ? null : people[s.target];
  const invitee: { userId?: string; email?: string; username?: string } =
    s.kind === 'invite'
      ? s.by === 'ghost'
        ? { username: 'ghost_nobody' }
        : s.by === 'username'
          ? { username: target!.username }
          : s.by === 'email'
            ? { email: target!.email }
            : { userId: target!.userId }
      : {};
  if (s.door === 'rest') {
    const base = `/api/teams/${teamId}/members`;
    const who = me ? { token: me.token, ip: me.ip } : null;
    const req = {
      invite: () =>
        call(app, who, { method: 'POST', url: base, payload: { ...invitee, role: (s as { role: Role }).role, status: (s as { status: string }).status } }),
      request: () => call(app, who, { method: 'POST', url: `${base}/request` }),
      accept: () => call(app, who, { method: 'POST', url: `${base}/accept` }),
      leave: () => call(app, who, { method: 'DELETE', url: `${base}/me` }),
      remove: () => call(app, who, { method: 'DELETE', url: `${base}/${target!.userId}` }),
      setRole: () => call(app, who, { method: 'PUT', url: `${base}/${target!.userId}`, payload: { role: (s as { role: Role }).role } }),
      acceptRequest: () => call(app, who, { method: 'PUT', url: `${base}/${target!.userId}`, payload: { status: 'active' } }),
    }[s.kind];
    return (await req()).statusCode;
  }
  const a = me ? me.actor : anon;
  try {
    switch (s.kind) {
      case 'invite':
        await svc.invite(a, teamId, { userId: invitee.userId, email: invitee.email, username: invitee.username, role: s.role, status: s.status });
        return 201;
      case 'request':
        await svc.request(a, teamId);
        return 201;
      case 'accept':
        await svc.accept(a, teamId);
        return 200;
      case 'leave':
        await svc.leave(a, teamId);
        return 204;
      case 'remove':
        await svc.removeMember(a, teamId, target!.userId);
        return 204;
      case 'setRole':
        await svc.updateMember(a, teamId, target!.userId, { role: s.role });
        return 200;
      case 'acceptRequest':
        await svc.updateMember(a, teamId, target!.userId, { status: 'active' });
        return 200;
    }
  } catch (err) {
    if (err instanceof AppError) return err.status;
    throw err;
  }
}

async function readState(teamId: string) {
  const rows = await database.db
    .select({ userId: teamMembers.userId, status: teamMembers.status, role: teamMembers.role, updatedAt: teamMembers.updatedAt })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(asc(teamMembers.userId));
  const [h] = await database.db.select({ n: count() }).from(changeHistory);
  return { rows, history: h.n };
}

const sameModel = (a: Model['rows'], b: Model['rows']) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k)?.status === v.status && b.get(k)?.role === v.role);

describe('team membership as a state machine (property)', () => {
  it('keeps its invariants under random sequences of steps by random people', async () => {
    await fc.assert(
      fc.asyncProperty(person, fc.array(step, { minLength: 30, maxLength: 60 }), async (ownerIdx, steps) => {
        await database.db.delete(blocks).where(
          inArray(
            blocks.blockerId,
            people.map((p) => p.userId),
          ),
        );
        const owner = people[ownerIdx];
        const team = await app.services.teams.create(owner.actor, { name: `Property team ${ownerIdx}`, description: '', tags: [], projectId: null });
        const model: Model = { owner: ownerIdx, rows: new Map([[ownerIdx, { status: 'active', role: 'manager' }]]), blocks: new Set() };
        const idxOf = new Map(people.map((p, i) => [p.userId, i]));
        let before = await readState(team._id);

        for (const [n, s] of steps.entries()) {
          const actor = s.kind === 'block' ? null : s.actor === 'owner' ? ownerIdx : s.actor === 'anon' ? null : resolve(model, s.actor);
          const resolved = s.kind !== 'block' && 'target' in s ? { ...s, target: resolve(model, s.target) } : s;
          const where = `step ${n} ${JSON.stringify(resolved)} by ${actor}`;
          const prevRows = new Map(model.rows);
          const want = expected(model, resolved, actor);
          let got: number;
          if (s.kind === 'block') {
            if (s.a !== s.b) {
              const key = `${s.a}>${s.b}`;
              if (model.blocks.has(key)) {
                model.blocks.delete(key);
                await database.db.delete(blocks).where(and(eq(blocks.blockerId, people[s.a].userId), eq(blocks.blockedId, people[s.b].userId)));
              } else {
                model.blocks.add(key);
                await database.db.insert(blocks).values({ blockerId: people[s.a].userId, blockedId: people[s.b].userId });
              }
            }
            got = 200;
          } else {
            got = await apply(team._id, resolved as Resolved, actor);
          }
          const after = await readState(team._id);

          // invariants read from the database, whatever the model says
          const ownerRows = after.rows.filter((r) => r.userId === owner.userId);
          expect(
            ownerRows.map((r) => [r.status, r.role]),
            `${where}: owner row`,
          ).toEqual([['active', 'manager']]);
          expect(new Set(after.rows.map((r) => r.userId)).size, `${where}: one row per person`).toBe(after.rows.length);
          const active = after.rows.filter((r) => r.status === 'active').length;
          const reported =
            n % 10 === 0
              ? (await call(app, null, { method: 'GET', url: `/api/teams/${team._id}` })).json().memberCount
              : (await app.services.teams.get(anon, team._id)).memberCount;
          expect(reported, `${where}: member count`).toBe(active);
          if (got >= 400 || s.kind === 'block') expect(after, `${where}: a refused step changed something`).toEqual(before);

          // the step answered and changed what the rules say
          expect(got, where).toBe(want);
          const actual = new Map(after.rows.map((r) => [idxOf.get(r.userId)!, { status: r.status, role: r.role }]));
          expect(
            sameModel(actual, model.rows),
            `${where}: rows differ from the model: ${JSON.stringify([...actual])} vs ${JSON.stringify([...model.rows])}`,
          ).toBe(true);
          if (got < 400 && s.kind !== 'block') {
            expect(after.history - before.history, `${where}: history entries`).toBe(sameModel(prevRows, model.rows) ? 0 : 1);
          }
          before = after;
        }
      }),
      { numRuns: 25 },
    );
  });
});
