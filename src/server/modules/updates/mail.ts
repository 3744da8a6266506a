import type { MailMessage } from '../../mail/mailer';
import { escapeHtml } from '../../lib/html';

/** The most of an update's text an email carries; the rest is on the campaign's page. */
export const EMAILED_BODY_MAX = 2000;

/** An update to a campaign's backers, as its audience is emailed once when it is posted (issue #33 item 5). */
export function updateMail(
  to: string,
  u: { campaignTitle: string; title: string; body: string; backersOnly: boolean; imageCount: number; link: string },
): MailMessage {
  const cut = u.body.length > EMAILED_BODY_MAX;
  const body = cut ? `${u.body.slice(0, EMAILED_BODY_MAX).trimEnd()}…` : u.body;
  const paragraphs = body.split(/\n{2,}/).filter((p) => p.trim() !== '');
  const intro = u.backersOnly
    ? `“${u.campaignTitle}” posted an update for its backers: you get it because you gave to the campaign or support it.`
    : `“${u.campaignTitle}” posted an update.`;
  const lines = [intro, u.title, ...paragraphs];
  if (u.imageCount > 0)
    lines.push(u.imageCount === 1 ? 'It has an image: see it on the campaign’s page.' : `It has ${u.imageCount} images: see them on the campaign’s page.`);
  const action = cut ? 'Read the whole update' : 'Open the campaign';
  return {
    to,
    kind: 'campaign_update',
    subject: `${u.campaignTitle}: ${u.title}`,
    link: u.link,
    text: `${lines.join('\n\n')}\n\n${action}: ${u.link}\n\n— Kindling`,
    html: `${lines
      .map((l, i) => (i === 1 ? `<h2>${escapeHtml(l)}</h2>` : `<p>${escapeHtml(l).replace(/\n/g, '<br>')}</p>`))
      .join('')}<p><a href="${escapeHtml(u.link)}">${escapeHtml(action)}</a></p><p>— Kindling</p>`,
  };
}
