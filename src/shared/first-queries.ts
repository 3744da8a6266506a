import { PAGE_SIZE } from './constants';

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

/** `/campaigns?q=`: the first page of the list (`campaigns.list`, infinite). */
export const campaignListInput = (q: string) => ({ q, limit: PAGE_SIZE });

/** `/campaigns/:id`: the campaign (`campaigns.get`). */
export const campaignInput = (id: string) => ({ id });

/** The id of the element whose text is the first data (a JSON data block: never run as script). */
export const FIRST_DATA_ID = 'first-data';
