import type { MailMessage } from './mailer';
import { escapeHtml } from '../lib/html';

const when = (d: Date) =>
  d.toLocaleString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });

/** The messages of support and coordination: a guest's confirmation link, and the reminder before the day. */
export const supportTemplates = {
  confirm: (to: string, p: { campaignTitle: string; link: string }): MailMessage => ({
    to,
    kind: 'guest_support',
    subject: `Confirm your support for ${p.campaignTitle}`,
    link: p.link,
    text: `Someone (hopefully you) said they are in for “${p.campaignTitle}” on Kindling.\n\nConfirm your support: ${p.link}\n\nThe link works once and expires in 7 days. If this was not you, ignore this message: nothing is counted.\n\n— Kindling`,
    html: `<p>Someone (hopefully you) said they are in for “${escapeHtml(p.campaignTitle)}” on Kindling.</p><p><a href="${escapeHtml(p.link)}">Confirm your support</a></p><p>The link works once and expires in 7 days. If this was not you, ignore this message: nothing is counted.</p><p>— Kindling</p>`,
  }),
  reminder: (to: string, p: { campaignTitle: string; executionDate: Date; link: string }): MailMessage => ({
    to,
    kind: 'campaign_reminder',
    subject: `Reminder: ${p.campaignTitle} is happening soon`,
    link: p.link,
    text: `“${p.campaignTitle}”, which you support, takes place on ${when(p.executionDate)}.\n\nThe campaign: ${p.link}\n\nThank you for taking part.\n\n— Kindling`,
  }),
};
