/** Business constants of the product (spec section 9 and decisions.md), written once. */

export const CATEGORIES = ['art', 'code', 'literature', 'other', 'adult', 'music', 'photography', 'film', 'design', 'game', 'podcast', 'research'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
export type Currency = (typeof CURRENCIES)[number];
export const DEFAULT_CURRENCY: Currency = 'USD';

export const ACTION_MODES = ['support', 'donation', 'both'] as const;
export type ActionMode = (typeof ACTION_MODES)[number];
export const DEFAULT_ACTION_MODE: ActionMode = 'donation';

export const TARGET_TYPES = ['amount', 'supporters'] as const;

export const DISPUTE_TYPES = ['donation', 'payout', 'other'] as const;
export const DISPUTE_STATUSES = ['open', 'under_review', 'resolved', 'rejected'] as const;
export const DEFAULT_REJECTION_REASON = 'not eligible';

export const FAVORITE_TARGET_TYPES = ['campaign', 'project', 'profile'] as const;
/** The most ids one `favorites.ids` question may ask about (a list shows a page of 20 at a time). */
export const FAVORITE_IDS_MAX = 100;
export const TEAM_ROLES = ['member', 'manager'] as const;
export const TEAM_MEMBER_STATUSES = ['invited', 'requested', 'active'] as const;

export const PAGE_SIZE = 20;
/**
 * A search counts its matches up to this many; beyond it `total` says "at least" (totalCapped,
 * shown as "100+"). Counting is most of a new search's cost at a million campaigns.
 */
export const SEARCH_COUNT_CAP = 100;
export const MAX_PAGE_SIZE = 100;
export const PROFILE_PAGE_SIZES = [10, 20, 50] as const;
export const TAG_SUGGESTIONS = 6;
export const TEAM_LIST_TAGS = 6;
export const PROFILE_LIST_TAGS = 8;
export const TEAM_TABLE_ROLES = 3;
export const COMMENT_MAX = 5000;
export const INFINITE_SCROLL_MARGIN_PX = 300;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const USERNAME_PATTERN = /^[a-z0-9_.-]{3,32}$/;

export const SESSION_COOKIE = 'session';
export const SESSION_TTL_DAYS = 30;

export const USER_SEARCH_DEBOUNCE_MS = 300;
export const DISPUTE_REDIRECT_MS = 600;
export const DISPUTE_MODAL_CLOSE_MS = 500;
export const AVATAR_RELOAD_MS = 300;
export const AVATAR_JPEG_QUALITY = 0.92;

/** Uploads (decisions.md "Content and images"): per file, per request, and decoded pixels. */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const UPLOAD_MAX_FILES = 10;
export const UPLOAD_MAX_PIXELS = 40_000_000;

/** How /campaigns can be ordered: newest first (the default), soonest execution date (active ones), most raised, most supporters. */
export const CAMPAIGN_SORTS = ['newest', 'ending', 'funded', 'supported'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];
/** How /projects can be ordered: newest first (the default) or most followers (a project has no money or date). */
export const PROJECT_SORTS = ['newest', 'supported'] as const;
export type ProjectSort = (typeof PROJECT_SORTS)[number];
/** A campaign is active until its execution date has passed, then past. */
export const CAMPAIGN_STATUSES = ['active', 'past'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** A preview circle member's role: a viewer reads a draft, a commenter also gives feedback (issue #30). */
export const PREVIEW_ROLES = ['viewer', 'commenter'] as const;
/** A preview circle member's state: invited -> joined (opened it) -> revoked. */
export const PREVIEW_MEMBER_STATES = ['invited', 'joined', 'revoked'] as const;
/** A preview link's life in days (default 7). */
export const PREVIEW_LINK_DAYS = { min: 1, max: 90, default: 7 } as const;
/** The cookie that keeps the preview tokens a browser was given (per item), so the page, its calls and its images carry them. */
export const PREVIEW_COOKIE = 'kindling_preview';
/** The header an API client sends a preview token in. */
export const PREVIEW_HEADER = 'x-preview-token';

/** The periods the creator's dashboard offers, in days (the last N UTC days, today included). Here, not in schemas/stats.ts: the page's first-data input reads it, and zod stays out of the first page's script. */
export const STATS_PERIODS = [30, 90, 365] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
