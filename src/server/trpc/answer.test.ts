import fc from 'fast-check';
import superjson from 'superjson';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CampaignListSchema, CampaignSchema } from '../../shared/schemas/campaigns';
import { datePathsOf, writeAnswer } from './answer';

const Item = z.object({
  at: z.date(),
  maybe: z.date().nullable(),
  later: z.date().optional(),
  title: z.string(),
  tags: z.array(z.string()),
  nested: z.object({ when: z.date(), n: z.number() }).nullable(),
  history: z.array(z.object({ on: z.date(), kind: z.enum(['a', 'b']) })),
});
const Page = z.object({ items: z.array(Item), total: z.number(), asOf: z.date() });

// new instances each time: superjson would also mark a Date met twice as the same object
const date = fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => new Date(d.getTime()));
const item = fc.record(
  {
    at: date,
    maybe: fc.option(date, { nil: null }),
    later: date,
    title: fc.string(),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    nested: fc.option(fc.record({ when: date, n: fc.integer() }), { nil: null }),
    history: fc.array(fc.record({ on: date, kind: fc.constantFrom('a' as const, 'b' as const) }), { maxLength: 3 }),
  },
  { requiredKeys: ['at', 'maybe', 'title', 'tags', 'nested', 'history'] },
);
const page = fc.record({ items: fc.array(item, { maxLength: 6 }), total: fc.integer(), asOf: date });

describe("writing a declared answer in superjson's format", () => {
  it('gives what superjson gives, and the client revives the same values', () => {
    const dates = datePathsOf(Page)!;
    expect(dates).not.toBeNull();
    fc.assert(
      fc.property(page, (data) => {
        // data carries only declared fields here, so JSON.stringify stands for the schema's serializer
        const text = writeAnswer(data, JSON.stringify, dates);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(superjson.serialize(data))));
        const revived = superjson.parse(text);
        expect(revived).toEqual(data);
      }),
      { numRuns: 200 },
    );
  });

  it('marks a date at the root, and writes no meta without dates', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(writeAnswer(at, JSON.stringify, datePathsOf(z.date())!)).toBe(JSON.stringify(superjson.serialize(at)));
    expect(superjson.parse(writeAnswer(at, JSON.stringify, datePathsOf(z.date())!))).toEqual(at);
    const plain = { ok: true, n: 3 };
    expect(writeAnswer(plain, JSON.stringify, datePathsOf(z.object({ ok: z.boolean(), n: z.number() }))!)).toBe('{"json":{"ok":true,"n":3}}');
  });

  it('takes the campaign answers, and leaves to zod and superjson what it cannot write the same way', () => {
    expect(datePathsOf(CampaignSchema)).not.toBeNull();
    expect(datePathsOf(CampaignListSchema)).not.toBeNull();
    expect(datePathsOf(z.object({ at: z.date().default(() => new Date()) }))).toBeNull();
    expect(datePathsOf(z.object({ n: z.string().transform(Number) }))).toBeNull();
    expect(datePathsOf(z.union([z.object({ at: z.date() }), z.object({ s: z.string() })]))).toBeNull();
    expect(datePathsOf(z.record(z.string(), z.date()))).toBeNull();
    expect(datePathsOf(z.object({ 'a.b': z.date() }))).toBeNull();
    expect(datePathsOf(z.lazy(() => z.string()))).toBeNull();
    // a union without dates is written as it is
    expect(datePathsOf(z.object({ u: z.union([z.string(), z.number()]) }))).not.toBeNull();
  });
});
