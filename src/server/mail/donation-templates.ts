import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';
import type { MailMessage } from './mailer';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function message(p: { to: string; kind: string; subject: string; lines: string[]; action: string; link: string }): MailMessage {
  return {
    to: p.to,
    kind: p.kind,
    subject: p.subject,
    link: p.link,
    text: `${p.lines.join('\n\n')}\n\n${p.action}: ${p.link}\n\n— Kindling`,
    html: `${p.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(p.link)}">${escapeHtml(p.action)}</a></p><p>— Kindling</p>`,
  };
}

interface Gift {
  amount: number;
  currency: Currency;
  campaignTitle: string;
  link: string;
}

/** The messages money sends: receipts, the owner's news, refunds and a monthly donation that stopped. */
export const donationTemplates = {
  receipt: (to: string, g: Gift & { monthly: boolean }) =>
    message({
      to,
      kind: 'donation_receipt',
      subject: `Your receipt: ${formatMoney(g.amount, g.currency)} to ${g.campaignTitle}`,
      lines: [
        `Thank you! Your ${g.monthly ? 'monthly donation' : 'donation'} of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” went through.`,
        g.monthly ? 'It will be charged again each month until you cancel it under My stuff, Supported.' : 'Keep this message as your receipt.',
      ],
      action: 'View your receipt',
      link: g.link,
    }),
  newDonation: (to: string, g: Gift) =>
    message({
      to,
      kind: 'donation_received',
      subject: `New donation: ${formatMoney(g.amount, g.currency)} to ${g.campaignTitle}`,
      lines: [`Someone gave ${formatMoney(g.amount, g.currency)} to your campaign “${g.campaignTitle}”.`],
      action: 'Open your campaign',
      link: g.link,
    }),
  refunded: (to: string, g: Gift & { reason: string | null }) =>
    message({
      to,
      kind: 'donation_refunded',
      subject: `Refund: ${formatMoney(g.amount, g.currency)} from ${g.campaignTitle}`,
      lines: [
        `Your donation of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” has been refunded in full.`,
        ...(g.reason ? [`Reason: ${g.reason}`] : []),
        'The money goes back to the card you paid with; your bank may take a few days to show it.',
      ],
      action: 'View your receipt',
      link: g.link,
    }),
  monthlyCancelled: (to: string, g: Gift) =>
    message({
      to,
      kind: 'monthly_donation_cancelled',
      subject: `Your monthly donation to ${g.campaignTitle} has stopped`,
      lines: [
        `We could not charge your monthly donation of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” after several attempts, so it has been cancelled.`,
        'Nothing more will be charged. You can start a new monthly donation from the campaign page with another card.',
      ],
      action: 'Your supported campaigns',
      link: g.link,
    }),
};
