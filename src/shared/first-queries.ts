import { STATS_PERIODS, type StatsPeriod } from './constants';
import { CAMPAIGN_SORTS, CAMPAIGN_STATUSES, CATEGORIES, type CampaignSort, type CampaignStatus, type Category, PAGE_SIZE } from './constants';

/**
 * The reads a public page makes for its first paint, written once for both ends: the page asks
 * React Query for them with exactly these inputs, and the server answers them inside the HTML it
 * sends for the page (src/server/http/first-data.ts), under the same query keys. A page whose
 * input differed would still work; it would just ask the server again once its script runs.
 */

/** How many of the newest campaigns the home page shows. */
export const HOME_CAMPAIGNS = 3;

/** `/`: the newest campaigns (`campaigns.list`). */
export const homeCampaignsInput = () => ({ limit: HOME_CAMPAIGNS });

/**
 * What /campaigns and /projects show, as the URL says it (`?q=&type=&status=&sort=`). Defaults are
 * left out: no `type` is every category, no `status` is active and past, no `sort` is the first
 * sort (newest). A value the page does not offer reads as its default.
 */
export interface ListFilters {
  q: string;
  type?: Category;
  status?: CampaignStatus;
  /** Only a sort other than the default (the first of the page's sorts). */
  sort?: string;
}

/** 'ending' lists active campaigns only: with it, the status choice is Active and not a choice. */
export const ENDING_SORT = 'ending';

/** Reads the URL's filters; `sorts` (the default first) and `withStatus` are what the page offers. */
export function parseListFilters(params: URLSearchParams, sorts: readonly string[], withStatus: boolean): ListFilters {
  const filters: ListFilters = { q: (params.get('q') ?? '').trim() };
  const type = params.get('type');
  if (type && (CATEGORIES as readonly string[]).includes(type)) filters.type = type as Category;
  const sort = params.get('sort');
  if (sort && sort !== sorts[0] && sorts.includes(sort)) filters.sort = sort;
  const status = params.get('status');
  if (withStatus && filters.sort !== ENDING_SORT && status && (CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
    filters.status = status as CampaignStatus;
  }
  return filters;
}

/**
 * `/campaigns?q=&type=&status=&sort=`: the first page of the list (`campaigns.list`, infinite),
 * with only the choices that differ from the defaults, so the default view keeps one query key.
 */
export function campaignListInput({ q, type, status, sort }: ListFilters): {
  q: string;
  limit: number;
  type?: Category;
  status?: CampaignStatus;
  sort?: CampaignSort;
} {
  const input: ReturnType<typeof campaignListInput> = { q, limit: PAGE_SIZE };
  if (type) input.type = type;
  if (status) input.status = status;
  if (sort) input.sort = sort as CampaignSort;
  return input;
}

/** The filters of a /campaigns address (the server's first paint reads them as the page does). */
export const campaignFilters = (params: URLSearchParams) => parseListFilters(params, CAMPAIGN_SORTS, true);

/** `/campaigns/:id`: the campaign (`campaigns.get`). */
export const campaignInput = (id: string) => ({ id });

/** `/projects/:id`: the project (`projects.get`), as its page asks for it. */
export const projectInput = (id: string) => ({ id });

/** The dashboard's period from its `?days=`: 30, 90 or 365 (30 when missing or another number). */
export function dashboardDays(value: string | null): StatsPeriod {
  const n = Number(value);
  return (STATS_PERIODS as readonly number[]).includes(n) ? (n as StatsPeriod) : 30;
}

/** The dashboard's stats read (`stats.campaign`), from the campaign's id and the page's `?days=`. */
export const dashboardStatsInput = (campaignId: string, days: StatsPeriod) => ({ campaignId, days });

/**
 * The owner's panels on the dashboard, as they ask for their first data: the funds
 * (`payouts.balance`), then the first pages of the payouts, the donations and the supporters
 * (infinite lists). With these in the page, the dashboard's first render is its whole render,
 * which React makes in slices (a transition), instead of four more renders as each answer comes.
 */
export const fundsInput = (campaignId: string) => ({ campaignId });
export const campaignPayoutsInput = (campaignId: string) => ({ campaignId, limit: 10 });
export const campaignDonationsInput = (campaignId: string) => ({ campaignId, limit: 20 });
export const campaignSupportersInput = (campaignId: string) => ({ campaignId, limit: 20 });

/** The id of the element whose text is the first data (a JSON data block: never run as script). */
export const FIRST_DATA_ID = 'first-data';
