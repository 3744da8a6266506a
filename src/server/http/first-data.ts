import { createServerSideHelpers } from '@trpc/react-query/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import superjson from 'superjson';
import {
  campaignFilters,
  campaignInput,
  campaignDonationsInput,
  campaignPayoutsInput,
  campaignSupportersInput,
  dashboardDays,
  dashboardStatsInput,
  fundsInput,
  campaignListInput,
  FIRST_DATA_ID,
  homeCampaignsInput,
  projectInput,
} from '../../shared/first-queries';
import type { AppRouteName } from '../../shared/routes';
import type { Context } from '../trpc/init';
import { appRouter } from '../trpc/router';
import type { SharedItem } from './share-tags';

/** What a page carries for its first paint: a JSON data block for the body, tags for the head. */
export interface FirstData {
  /** `<script type="application/json">` with React Query's dehydrated cache (superjson's format). */
  body: string;
  /** `<link rel="preload">` of the image the first paint shows largest, when the server knows it. */
  head: string;
  /** What the page says, without the moments the answers were read: the same for an unchanged page (its validator's input). */
  stable: string;
  /**
   * The campaign or project of an item's page, when this visitor may see it (its read answered):
   * what its share tags say (share-tags.ts), and whether it is a draft. Absent when the read
   * failed: the page is then the same as a missing item's.
   */
  item?: SharedItem;
}

type Helpers = ReturnType<typeof createServerSideHelpers<typeof appRouter>>;

/** The reads of each public page's first paint (the same inputs its components use: shared/first-queries.ts). */
const PAGE_READS: Partial<Record<AppRouteName, (h: Helpers, params: Record<string, string>, search: URLSearchParams) => Promise<unknown>>> = {
  home: (h) => h.campaigns.list.prefetch(homeCampaignsInput()),
  campaigns: (h, _params, search) => h.campaigns.list.prefetchInfinite(campaignListInput(campaignFilters(search))),
  campaign: (h, params) => h.campaigns.get.prefetch(campaignInput(params.id ?? '')),
  project: (h, params) => h.projects.get.prefetch(projectInput(params.id ?? '')),
  // the owner's dashboard: its campaign, figures and panels arrive with the page, so nothing moves
  // when they come and the page renders once (anyone else's reads fail and are left out)
  dashboard: (h, params, search) =>
    Promise.all([
      h.campaigns.get.prefetch(campaignInput(params.id ?? '')),
      h.stats.campaign.prefetch(dashboardStatsInput(params.id ?? '', dashboardDays(search.get('days')))),
      h.payouts.balance.prefetch(fundsInput(params.id ?? '')),
      h.payouts.ofCampaign.prefetchInfinite(campaignPayoutsInput(params.id ?? '')),
      h.donations.ofCampaign.prefetchInfinite(campaignDonationsInput(params.id ?? '')),
      h.supports.list.prefetchInfinite(campaignSupportersInput(params.id ?? '')),
    ]),
};

/** The item an item's page read, in the fields its share tags and its cover's preload use. */
interface ItemAnswer {
  _id: string;
  title: string;
  description: string;
  imageUrl: string | null;
  coverUrl?: string | null;
  visibility: string;
}

/** The campaign or project the page of `route` read (undefined for other pages, or when the read failed). */
function itemOf(helpers: Helpers, route: AppRouteName | undefined, id: string): { kind: 'campaign' | 'project'; answer: ItemAnswer } | undefined {
  if (route === 'campaign') {
    const answer = helpers.queryClient.getQueryData<ItemAnswer>(helpers.campaigns.get.queryOptions(campaignInput(id)).queryKey);
    return answer && { kind: 'campaign', answer };
  }
  if (route === 'project') {
    const answer = helpers.queryClient.getQueryData<ItemAnswer>(helpers.projects.get.queryOptions(projectInput(id)).queryKey);
    return answer && { kind: 'project', answer };
  }
  return undefined;
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The answers a page's first paint would otherwise ask for once its script has run: who is
 * signed in (`auth.me`, on every page: the layout waits for it), and the public page's own data.
 * They come from the procedures themselves, called in-process with the request's session (the
 * same service calls, checks and output schemas as the tRPC door), dehydrated for React Query
 * under the keys the client's hooks use. A read that fails is left out: the page then asks for
 * it as before and shows its own error.
 */
export async function firstData(
  ctx: Pick<Context, 'deps' | 'services'> & { req: FastifyRequest; res: FastifyReply },
  route: AppRouteName | undefined,
  params: Record<string, string>,
  search: URLSearchParams,
): Promise<FirstData> {
  const helpers = createServerSideHelpers({ router: appRouter, ctx: { ...ctx, actor: ctx.req.actor }, transformer: superjson });
  const read = route && PAGE_READS[route];
  await Promise.all([helpers.auth.me.prefetch(), read?.(helpers, params, search)]);
  let head = '';
  let item: SharedItem | undefined;
  const shown = itemOf(helpers, route, params.id ?? '');
  if (shown) {
    const { kind, answer } = shown;
    // the cover as the page shows it (a project's page: its cover, else its image)
    const cover = answer.coverUrl ?? answer.imageUrl;
    if (cover) head = `<link rel="preload" as="image" href="${attr(cover)}" fetchpriority="high">`;
    item = { kind, id: answer._id, title: answer.title, description: answer.description, imageUrl: cover, visibility: answer.visibility };
  }
  const state = helpers.dehydrate({ shouldDehydrateQuery: (q) => q.state.status === 'success' });
  // "<" escaped: the text can never close the element or open a comment
  const json = JSON.stringify(state).replace(/</g, '\\u003c');
  const stable = JSON.stringify(state, (key, value: unknown) => (key === 'dehydratedAt' || key === 'dataUpdatedAt' ? undefined : value));
  return { body: `<script type="application/json" id="${FIRST_DATA_ID}">${json}</script>`, head, stable, item };
}
