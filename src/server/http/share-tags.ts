import { M } from '../../shared/messages';
import { escapeHtml } from '../lib/html';

/**
 * The share tags of a campaign's or project's page (issue #30): what a link preview (a chat app,
 * a social network) and a search engine read from the page's HTML before any script runs.
 *
 * index.html carries generic tags for every page (the app's name and tagline). The page of a
 * released item has them replaced by its own: its title, the start of its description as plain
 * text, its cover as an absolute address (config.appUrl), and its address (Open Graph `og:` and
 * Twitter's `twitter:` cards). The page of a draft (only its owner, its circle and a preview link's
 * holder ever get it) says "Private preview" and nothing of the draft: no title, text or image,
 * and asks not to be indexed. Anyone who may not see the draft gets the page of a missing item,
 * with the generic tags (client-app.ts).
 *
 * Every text goes through `escapeHtml`: a title with quotes or `<` cannot end the attribute or
 * open a tag.
 */

/** The visibilities of an item that is not released yet (only its owner and its circle see it). */
export const DRAFT_VISIBILITIES: readonly string[] = ['draft', 'scheduled'];

/** True for a draft's visibility (`draft`, or `scheduled`: a draft with a release time). */
export function isDraftVisibility(visibility: unknown): boolean {
  return typeof visibility === 'string' && DRAFT_VISIBILITIES.includes(visibility);
}

/** What a page's share tags say of its item (from the item read of its first data: first-data.ts). */
export interface SharedItem {
  kind: 'campaign' | 'project';
  id: string;
  title: string;
  description: string;
  /** The cover as the item stores it (a path under /uploads/), or null. */
  imageUrl: string | null;
  visibility: string;
}

/** How many characters of the description the share tags carry, at most (an ellipsis included). */
export const SHARE_TEXT_MAX = 200;

/**
 * The start of a description as one line of plain text: white space (line breaks, tabs) and
 * control characters become single spaces; past `max` characters it is cut at the last word
 * boundary that fits, with an ellipsis. Surrogate pairs are never split.
 */
export function shortText(text: string, max = SHARE_TEXT_MAX): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  const flat = text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  // a word longer than half the room is cut inside it
  const head = space >= max / 2 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s.,;:!?-]+$/, '')}…`;
}

/** `ref` (a path of the app, or an address) as an absolute http(s) address under `appUrl`'s origin rules; null for anything else. */
export function absoluteUrl(appUrl: string, ref: string | null | undefined): string | null {
  if (!ref) return null;
  try {
    const url = new URL(ref, `${appUrl}/`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

const meta = (attr: 'name' | 'property', key: string, content: string) => `<meta ${attr}="${key}" content="${escapeHtml(content)}">`;

/**
 * The tags of an item's page: the item's own for a released one, "Private preview" alone for a
 * draft. `generic` is the template's own `<title>` and `<meta name="description">` tags, kept as
 * they are on a draft's page (they say nothing of the draft).
 */
export function itemShareTags(appUrl: string, item: SharedItem, generic: { title: string; description: string } = { title: '', description: '' }): string {
  if (isDraftVisibility(item.visibility)) {
    return [
      generic.title,
      generic.description,
      meta('name', 'robots', 'noindex'),
      meta('property', 'og:title', M.privatePreview),
      meta('name', 'twitter:card', 'summary'),
      meta('name', 'twitter:title', M.privatePreview),
    ].join('');
  }
  const text = shortText(item.description);
  const image = absoluteUrl(appUrl, item.imageUrl);
  const url = absoluteUrl(appUrl, `/${item.kind}s/${encodeURIComponent(item.id)}`);
  const tags = [`<title>${escapeHtml(`${item.title} · ${M.brand}`)}</title>`];
  if (text) tags.push(meta('name', 'description', text));
  tags.push(meta('property', 'og:site_name', M.brand), meta('property', 'og:type', 'article'), meta('property', 'og:title', item.title));
  if (text) tags.push(meta('property', 'og:description', text));
  if (url) tags.push(meta('property', 'og:url', url));
  if (image) tags.push(meta('property', 'og:image', image));
  tags.push(meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'), meta('name', 'twitter:title', item.title));
  if (text) tags.push(meta('name', 'twitter:description', text));
  if (image) tags.push(meta('name', 'twitter:image', image));
  return tags.join('');
}

/**
 * A page template with its generic share tags taken out (its `<title>`, `<meta name="description">`,
 * the `og:` and `twitter:` tags): the page of an item puts its own where the first of them was
 * (before `</head>` when the template has none). Made once per template at start.
 */
export interface ShareSlot {
  before: string;
  after: string;
  /** The template's `<title>` and `<meta name="description">` tags as written ('' when it has none). */
  generic: { title: string; description: string };
}

const SHARE_TAG = /[ \t]*(?:<title\b[^>]*>[^<]*<\/title>|<meta\s+(?:name="(?:description|twitter:[^"]*)"|property="og:[^"]*")[^>]*>)[ \t]*\r?\n?/gi;

export function shareSlot(template: string): ShareSlot {
  let first = -1;
  const generic = { title: '', description: '' };
  const rest = template.replace(SHARE_TAG, (tag: string, offset: number) => {
    if (first < 0) first = offset;
    if (!generic.title && /^\s*<title\b/i.test(tag)) generic.title = tag.trim();
    if (!generic.description && /<meta\s+name="description"/i.test(tag)) generic.description = tag.trim();
    return '';
  });
  // no tag was removed before `first`: it is still where the slot goes in `rest`
  const at = first >= 0 ? first : rest.lastIndexOf('</head>');
  return at < 0 ? { before: rest, after: '', generic } : { before: rest.slice(0, at), after: rest.slice(at), generic };
}

/** The template of `slot` with `tags` in the slot. */
export function fillShareSlot(slot: ShareSlot, tags: string): string {
  return slot.before + tags + slot.after;
}
