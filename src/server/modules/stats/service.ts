import { sql } from 'drizzle-orm';
import type { CampaignStatsDto, StatsActivityDto, StatsDayDto, StatsPeriod } from '../../../shared/schemas/stats';
import { toMajor } from '../../../shared/money';
import { rowsOf } from '../../db/client';
import type { Actor, Deps } from '../../deps';
import { requireOwner, requireUser } from '../../lib/access';
import { visibleCampaign } from '../../lib/campaign-access';
import type { PayoutsService } from '../payouts/service';

/** The most lines of recent activity the dashboard shows. */
export const RECENT_ACTIVITY = 10;

type DayRow = { day: string; gifts: number; donated: string; refunded: string; raised: string; new_supporters: number; supporters: number };
type FigureRow = { donors: string; supporters: string; monthly: string; gifts: string; average: string; raised: string };
type ActivityRow = { kind: StatsActivityDto['kind']; at: Date | string; who: string; amount: string | null; monthly: boolean };

/**
 * The creator's dashboard of a campaign (issue #33): its figures now, its money and supporters
 * on each UTC day of the last 30, 90 or 365 days, and its latest activity; the owner's only
 * (403 to anyone else who sees the campaign, 404 to whoever does not: lib/campaign-access.ts).
 *
 * Every sum is SQL over integer minor units of the campaign's currency: the days over its ledger
 * account (`donation` groups in, `refund` groups and lost chargebacks out, as the campaign's
 * totals count them: campaign_totals_from_ledger), the figures over the donations, supports and
 * monthly donations, so a day without money is a row of zeros. Available is the Funds panel's
 * (the payouts service's balance: lib/balances.ts less pending payouts), read, not computed again.
 */
export function createStatsService(deps: Deps, { payouts }: { payouts: PayoutsService }) {
  const { db } = deps;

  async function series(campaignId: string, currency: string, days: StatsPeriod): Promise<DayRow[]> {
    // the campaign's ledger entries by UTC day: what came in, what went back; before the period
    // they are one sum, where the cumulative line starts
    return rowsOf<DayRow>(
      await db.execute(sql`
        with bounds as (
          select (now() at time zone 'UTC')::date as last_day, (now() at time zone 'UTC')::date - ${days - 1}::int as first_day
        ),
        moves as (
          select (e.created_at at time zone 'UTC')::date as day,
                 count(*) filter (where g.kind = 'donation' and e.account_type = 'campaign')::int as gifts,
                 coalesce(sum(e.amount) filter (where g.kind = 'donation' and e.account_type = 'campaign'), 0)::bigint as donated,
                 coalesce(-sum(e.amount) filter (where (g.kind = 'refund' and e.account_type = 'campaign')
                                                    or (g.kind = 'chargeback_loss' and e.account_type = 'held')), 0)::bigint as refunded
            from ledger_entries e
            join ledger_groups g on g.id = e.group_id
           where e.account_type in ('campaign', 'held') and e.account_id = ${campaignId} and e.currency = ${currency}
           group by 1
        ),
        joined as (
          select (s.confirmed_at at time zone 'UTC')::date as day, count(*)::int as n
            from supports s
           where s.campaign_id = ${campaignId} and s.confirmed_at is not null
           group by 1
        ),
        before as (
          select coalesce((select sum(m.donated - m.refunded) from moves m, bounds b where m.day < b.first_day), 0)::bigint as raised,
                 coalesce((select sum(j.n) from joined j, bounds b where j.day < b.first_day), 0)::int as supporters
        ),
        days as (
          select gs::date as day from bounds b, generate_series(b.first_day, b.last_day, interval '1 day') gs
        )
        select to_char(d.day, 'YYYY-MM-DD') as day,
               coalesce(m.gifts, 0)::int as gifts,
               coalesce(m.donated, 0)::bigint as donated,
               coalesce(m.refunded, 0)::bigint as refunded,
               (before.raised + sum(coalesce(m.donated, 0) - coalesce(m.refunded, 0)) over (order by d.day))::bigint as raised,
               coalesce(j.n, 0)::int as new_supporters,
               (before.supporters + sum(coalesce(j.n, 0)) over (order by d.day))::int as supporters
          from days d
          cross join before
          left join moves m on m.day = d.day
          left join joined j on j.day = d.day
         order by d.day
      `),
    );
  }

  async function figures(campaignId: string, currency: string): Promise<FigureRow> {
    const [row] = rowsOf<FigureRow>(
      await db.execute(sql`
        select
          (select coalesce(sum(t.donors), 0) from campaign_totals t where t.campaign_id = ${campaignId} and t.currency = ${currency}) as donors,
          (select count(*) from supports s where s.campaign_id = ${campaignId} and s.confirmed_at is not null) as supporters,
          (select count(distinct m.donor_id) from subscriptions m where m.campaign_id = ${campaignId} and m.status = 'active') as monthly,
          (select count(*) from donations d
            where d.campaign_id = ${campaignId} and d.currency = ${currency} and d.status = 'succeeded' and d.amount > d.refunded_amount) as gifts,
          (select coalesce(round(avg(d.amount - d.refunded_amount)), 0)::bigint from donations d
            where d.campaign_id = ${campaignId} and d.currency = ${currency} and d.status = 'succeeded' and d.amount > d.refunded_amount) as average,
          (select coalesce(sum(t.raised - t.refunded - t.charged_back), 0) from campaign_totals t
            where t.campaign_id = ${campaignId} and t.currency = ${currency}) as raised
      `),
    );
    return row;
  }

  async function recent(campaignId: string): Promise<ActivityRow[]> {
    return rowsOf<ActivityRow>(
      await db.execute(sql`
        (select 'donation' as kind, d.succeeded_at as at,
                case when d.donor_id is null then 'Guest' else coalesce(nullif(u.name, ''), nullif(u.username, ''), 'Member') end as who,
                d.amount::text as amount, d.recurring as monthly
           from donations d left join users u on u.id = d.donor_id
          where d.campaign_id = ${campaignId} and d.status in ('succeeded', 'refunded') and d.succeeded_at is not null
          order by d.succeeded_at desc limit ${RECENT_ACTIVITY})
        union all
        (select 'refund', g.created_at,
                case when d.donor_id is null then 'Guest' else coalesce(nullif(u.name, ''), nullif(u.username, ''), 'Member') end,
                (-e.amount)::text, d.recurring
           from ledger_groups g
           join ledger_entries e on e.group_id = g.id and e.account_type = 'campaign' and e.account_id = ${campaignId}
           join donations d on d.id = g.donation_id
           left join users u on u.id = d.donor_id
          where g.kind = 'refund'
          order by g.created_at desc limit ${RECENT_ACTIVITY})
        union all
        (select 'supporter', s.confirmed_at,
                case when s.user_id is null then 'Guest' else coalesce(nullif(u.name, ''), nullif(u.username, ''), 'Member') end,
                null, false
           from supports s left join users u on u.id = s.user_id
          where s.campaign_id = ${campaignId} and s.confirmed_at is not null
          order by s.confirmed_at desc limit ${RECENT_ACTIVITY})
        order by at desc
        limit ${RECENT_ACTIVITY}
      `),
    );
  }

  return {
    /** The dashboard's numbers for the campaign's owner: `days` UTC days ending today. */
    async ofCampaign(actor: Actor, campaignId: string, days: StatsPeriod): Promise<CampaignStatsDto> {
      requireUser(actor);
      const c = await visibleCampaign(db, actor, campaignId);
      requireOwner(actor, c.ownerId);
      const [rows, f, activity, balance] = await Promise.all([
        series(c.id, c.currency, days),
        figures(c.id, c.currency),
        recent(c.id),
        payouts.balance(actor, c.id),
      ]);
      const seriesDto: StatsDayDto[] = rows.map((r) => ({
        date: r.day,
        gifts: Number(r.gifts),
        donated: toMajor(Number(r.donated)),
        refunded: toMajor(Number(r.refunded)),
        net: toMajor(Number(r.donated) - Number(r.refunded)),
        raised: toMajor(Number(r.raised)),
        newSupporters: Number(r.new_supporters),
        supporters: Number(r.supporters),
      }));
      return {
        campaignId: c.id,
        currency: c.currency,
        days,
        from: seriesDto[0]?.date ?? '',
        to: seriesDto.at(-1)?.date ?? '',
        timeZone: 'UTC',
        raised: toMajor(Number(f.raised)),
        donors: Number(f.donors),
        supporters: Number(f.supporters),
        monthlyDonors: Number(f.monthly),
        gifts: Number(f.gifts),
        averageGift: toMajor(Number(f.average)),
        available: balance.available,
        series: seriesDto,
        recent: activity.map((a) => ({
          kind: a.kind,
          at: new Date(a.at),
          who: a.who,
          amount: a.amount === null ? null : toMajor(Number(a.amount)),
          monthly: a.monthly,
        })),
      };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
