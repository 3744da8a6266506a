import { randomUUID } from 'node:crypto';
import { asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignDonors, campaignTotals, donations, emailOutbox, ledgerEntries, ledgerGroups, paymentEvents } from '../../db/schema';
import type { PaymentEvent } from '../../payments/port';
import { buildTestApp, call, openTestDatabase, signUpVerified } from '../../../../test/helpers';
import { createDonationsContext } from './context';
import { donationSettlement } from './settle';

/**
 * A succeeded payment is booked in two forms (settle.ts): a pending one-off donation's in one
 * statement with its messages (statements.ts, BOOK_ONE_OFF), everything else in the general
 * transaction (`applyInTransaction`, which also books a one-off donation that statement leaves
 * alone). Both must book the same thing. Here the same events (gifts of an account, the same
 * account again, guests, and a redelivered event) are booked once through each form, each on a
 * campaign of its own made alike, and everything the booking writes is compared, with ids, event
 * ids, references and times replaced by names: the donation rows, the payment events, the ledger
 * groups and their entries, the campaign's totals, its donors' rows and the emails in the outbox.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let settle: ReturnType<typeof donationSettlement>;
let tokenOf: (id: string) => string;
let donorId: string;
const campaignOf: Record<Form, string> = { statement: '', transaction: '' };

type Form = 'statement' | 'transaction';
type Succeeded = Extract<PaymentEvent, { type: 'payment.succeeded' }>;

/** The gifts, in order: who gives (the account, or a guest's address) and how much (minor units). */
const GIFTS: { who: 'account' | string; amount: number }[] = [
  { who: 'account', amount: 1000 },
  { who: 'guest.one@example.com', amount: 550 },
  { who: 'account', amount: 300 },
  { who: 'guest.two@example.com', amount: 1234 },
  { who: 'guest.one@example.com', amount: 1 },
];

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  const owner = await signUpVerified(app, database, { username: 'forms_owner' });
  donorId = (await signUpVerified(app, database, { username: 'forms_donor' })).userId;
  for (const form of ['statement', 'transaction'] as const) {
    const res = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Booking forms', currency: 'EUR', actionMode: 'both' } });
    campaignOf[form] = res.json()._id;
  }
  const deps = app.deps;
  const ctx = createDonationsContext(deps, { provider: deps.payments, receiptKey: deps.receiptKey, campaigns: app.services.campaigns });
  settle = donationSettlement(ctx);
  tokenOf = ctx.tokenOf;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** Books GIFTS on the form's campaign through that form, then delivers the first event again; answers what it wrote, with names for ids. */
async function run(form: Form): Promise<unknown> {
  const { db } = database;
  const campaignId = campaignOf[form];
  const provider = app.deps.payments.name;
  const outboxBefore = (await db.select({ id: emailOutbox.id }).from(emailOutbox)).map((r) => r.id);
  const names = new Map<string, string>([[campaignId, '<campaign>']]);
  const events: Succeeded[] = [];
  for (const [i, gift] of GIFTS.entries()) {
    const [d] = await db
      .insert(donations)
      .values({
        campaignId,
        donorId: gift.who === 'account' ? donorId : null,
        donorEmail: gift.who === 'account' ? null : gift.who,
        amount: gift.amount,
        currency: 'EUR',
        provider,
        idempotencyKey: randomUUID(),
        requestHash: `hash-${i}`,
      })
      .returning();
    const event: Succeeded = {
      eventId: `${form}-event-${i}`,
      type: 'payment.succeeded',
      donationId: d.id,
      providerRef: `${form}-ref-${i}`,
      amount: d.amount,
      currency: 'EUR',
    };
    events.push(event);
    for (const [value, name] of [
      [d.id, `<donation-${i}>`],
      [d.idempotencyKey, `<key-${i}>`],
      [tokenOf(d.id), `<token-${i}>`],
      [event.eventId, `<event-${i}>`],
      [event.providerRef, `<ref-${i}>`],
    ])
      names.set(value, name);
  }
  const book = async (event: Succeeded) => {
    if (form === 'statement') return settle.bookOneOff(event);
    await settle.applyInTransaction(event);
    return null;
  };
  for (const event of events) expect(await book(event)).not.toBe(false);
  // the same event again books nothing (the statement says so; the transaction finds it seen)
  expect(await book(events[0])).toBe(form === 'statement' ? false : null);

  const ids = events.map((e) => e.donationId);
  const groups = await db.select().from(ledgerGroups).where(inArray(ledgerGroups.donationId, ids)).orderBy(asc(ledgerGroups.createdAt));
  for (const g of groups) names.set(g.id, `<group-of-${names.get(g.donationId ?? '')}>`);
  const written = {
    donations: await db.select().from(donations).where(eq(donations.campaignId, campaignId)).orderBy(asc(donations.createdAt)),
    events: await db.select().from(paymentEvents).where(inArray(paymentEvents.donationId, ids)).orderBy(asc(paymentEvents.eventId)),
    groups,
    entries: await db
      .select()
      .from(ledgerEntries)
      .where(
        inArray(
          ledgerEntries.groupId,
          groups.map((g) => g.id),
        ),
      ),
    totals: await db
      .select({
        currency: campaignTotals.currency,
        raised: sql<string>`sum(${campaignTotals.raised})`,
        refunded: sql<string>`sum(${campaignTotals.refunded})`,
        paidOut: sql<string>`sum(${campaignTotals.paidOut})`,
        held: sql<string>`sum(${campaignTotals.held})`,
        chargedBack: sql<string>`sum(${campaignTotals.chargedBack})`,
        disputeFees: sql<string>`sum(${campaignTotals.disputeFees})`,
        // sum of an integer is a bigint: text, as PGlite would give it as a number
        donors: sql<string>`sum(${campaignTotals.donors})::text`,
      })
      .from(campaignTotals)
      .where(eq(campaignTotals.campaignId, campaignId))
      .groupBy(campaignTotals.currency),
    donors: await db.select().from(campaignDonors).where(eq(campaignDonors.campaignId, campaignId)).orderBy(asc(campaignDonors.donorKey)),
    outbox: await db
      .select()
      .from(emailOutbox)
      .where(outboxBefore.length ? notInArray(emailOutbox.id, outboxBefore) : undefined),
  };
  return named(written, names);
}

/** The snapshot with every id, key, token, reference and event id replaced by its name, and times by whether they are set. */
function named(written: Record<string, unknown[]>, names: Map<string, string>): unknown {
  const rename = (s: string) => [...names].reduce((out, [value, name]) => out.split(value).join(name), s);
  const json = JSON.stringify(written, (key, value) => {
    if (key === 'id' && typeof value === 'string' && !names.has(value)) return '<row id>';
    if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return '<time>';
    return typeof value === 'string' ? rename(value) : value;
  });
  const out = JSON.parse(json) as Record<string, Record<string, unknown>[]>;
  // rows whose order no column fixes (entries of a group, the messages of a booking) in a stable order
  for (const k of ['entries', 'outbox']) out[k].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return out;
}

describe('the two forms of booking a payment', () => {
  it('write the same donations, events, ledger, totals, donors and emails for the same events', async () => {
    const byStatement = (await run('statement')) as Record<string, unknown[]>;
    const byTransaction = (await run('transaction')) as Record<string, unknown[]>;
    // what is compared is there: every gift booked, each with its receipt and the owner's news
    expect(byStatement.donations).toHaveLength(GIFTS.length);
    expect(byStatement.groups).toHaveLength(GIFTS.length);
    expect(byStatement.entries).toHaveLength(2 * GIFTS.length);
    expect(byStatement.outbox).toHaveLength(2 * GIFTS.length);
    expect(byStatement.totals).toEqual([expect.objectContaining({ raised: String(GIFTS.reduce((s, g) => s + g.amount, 0)), donors: '3' })]);
    expect(byTransaction).toEqual(byStatement);
  });
});
