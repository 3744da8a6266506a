import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';
import type { MailMessage } from './mailer';
import { escapeHtml } from '../lib/html';

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
  monthlyEnded: (to: string, g: Gift) =>
    message({
      to,
      kind: 'monthly_donation_ended',
      subject: `Your monthly donation to ${g.campaignTitle} has ended`,
      lines: [
        `“${g.campaignTitle}” has taken place, so your monthly donation of ${formatMoney(g.amount, g.currency)} to it has ended.`,
        'Nothing more will be charged. Thank you for your support!',
      ],
      action: 'Your supported campaigns',
      link: g.link,
    }),
  /** Money of a donation went back to the donor on the payment provider's side (in full or in part). */
  providerRefund: (to: string, g: Gift & { refunded: number; full: boolean }) =>
    message({
      to,
      kind: 'donation_refunded',
      subject: `Refund: ${formatMoney(g.refunded, g.currency)} from ${g.campaignTitle}`,
      lines: [
        g.full
          ? `Your donation of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” has been refunded in full.`
          : `${formatMoney(g.refunded, g.currency)} of your donation of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” has been refunded.`,
        'The money goes back to the card you paid with; your bank may take a few days to show it.',
      ],
      action: 'View your receipt',
      link: g.link,
    }),
  /** The owner's news of a refund made on the payment provider's side. */
  ownerRefund: (to: string, g: Gift & { refunded: number }) =>
    message({
      to,
      kind: 'donation_refunded_owner',
      subject: `Refunded: ${formatMoney(g.refunded, g.currency)} of a donation to ${g.campaignTitle}`,
      lines: [
        `${formatMoney(g.refunded, g.currency)} of a donation of ${formatMoney(g.amount, g.currency)} to “${g.campaignTitle}” was refunded to the donor through the payment provider.`,
        'Your campaign’s balance has been reduced by that amount.',
      ],
      action: 'Open your campaign',
      link: g.link,
    }),
  /** A chargeback opened, won or lost, as the owner or the donor is told of it. */
  chargeback: (to: string, g: Gift & { audience: 'owner' | 'donor'; stage: 'opened' | 'won' | 'lost'; fee: number }) => {
    const money = formatMoney(g.amount, g.currency);
    const owner = {
      opened: [
        `The donor’s bank has disputed a donation of ${money} to “${g.campaignTitle}” (a chargeback).`,
        'The amount is held and cannot be paid out until the dispute ends; the payment provider decides it with the bank.',
      ],
      won: [`The dispute about a donation of ${money} to “${g.campaignTitle}” ended in your favour: the amount is available again.`],
      lost: [
        `The dispute about a donation of ${money} to “${g.campaignTitle}” was lost: the amount went back to the donor.`,
        ...(g.fee > 0 ? [`The payment provider’s dispute fee of ${formatMoney(g.fee, g.currency)} was taken from your campaign’s balance.`] : []),
      ],
    };
    const donor = {
      opened: [`Your bank has disputed your donation of ${money} to “${g.campaignTitle}”. The amount is held until the dispute ends.`],
      won: [`The dispute about your donation of ${money} to “${g.campaignTitle}” has ended: the donation stands.`],
      lost: [`The dispute about your donation of ${money} to “${g.campaignTitle}” has ended: the amount went back to you.`],
    };
    const subject = { opened: 'Disputed', won: 'Dispute ended', lost: 'Dispute ended' }[g.stage];
    return message({
      to,
      kind: `donation_chargeback_${g.stage}`,
      subject: `${subject}: ${money} to ${g.campaignTitle}`,
      lines: (g.audience === 'owner' ? owner : donor)[g.stage],
      action: g.audience === 'owner' ? 'Open your campaign' : 'View your receipt',
      link: g.link,
    });
  },
};
