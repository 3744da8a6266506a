import { createServerSideHelpers } from '@trpc/react-query/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import superjson from 'superjson';
import { campaignFilters, campaignInput, campaignListInput, FIRST_DATA_ID, homeCampaignsInput } from '../../shared/first-queries';
import type { AppRouteName } from '../../shared/routes';
import type { Context } from '../trpc/init';
import { appRouter } from '../trpc/router';

/** What a page carries for its first paint: a JSON data block for the body, tags for the head. */
export interface FirstData {
  /** `<script type="application/json">` with React Query's dehydrated cache (superjson's format). */
  body: string;
  /** `<link rel="preload">` of the image the first paint shows largest, when the server knows it. */
  head: string;
  /** What the page says, without the moments the answers were read: the same for an unchanged page (its validator's input). */
  stable: string;
}

type Helpers = ReturnType<typeof createServerSideHelpers<typeof appRouter>>;

/** The reads of each public page's first paint (the same inputs its components use: shared/first-queries.ts). */
const PAGE_READS: Partial<Record<AppRouteName, (h: Helpers, params: Record<string, string>, search: URLSearchParams) => Promise<unknown>>> = {
  home: (h) => h.campaigns.list.prefetch(homeCampaignsInput()),
  campaigns: (h, _params, search) => h.campaigns.list.prefetchInfinite(campaignListInput(campaignFilters(search))),
  campaign: (h, params) => h.campaigns.get.prefetch(campaignInput(params.id ?? '')),
};

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
  if (route === 'campaign') {
    const cover = helpers.queryClient.getQueryData<{ imageUrl?: string }>(
      helpers.campaigns.get.queryOptions(campaignInput(params.id ?? '')).queryKey,
    )?.imageUrl;
    if (cover) head = `<link rel="preload" as="image" href="${attr(cover)}" fetchpriority="high">`;
  }
  const state = helpers.dehydrate({ shouldDehydrateQuery: (q) => q.state.status === 'success' });
  // "<" escaped: the text can never close the element or open a comment
  const json = JSON.stringify(state).replace(/</g, '\\u003c');
  const stable = JSON.stringify(state, (key, value: unknown) => (key === 'dehydratedAt' || key === 'dataUpdatedAt' ? undefined : value));
  return { body: `<script type="application/json" id="${FIRST_DATA_ID}">${json}</script>`, head, stable };
}
