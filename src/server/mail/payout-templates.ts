import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';
import type { MailMessage } from './mailer';

interface PayoutNews {
  campaignTitle: string;
  gross: number;
  fee: number;
  net: number;
  currency: Currency;
  link: string;
}

const money = (n: number, c: Currency) => formatMoney(n, c);

/**
 * The owner hears about every decision on a payout, and when a dispute starts or stops holding
 * the campaign's payouts; a dispute's author about every status change.
 */
export const payoutTemplates = {
  paid: (to: string, p: PayoutNews): MailMessage => ({
    to,
    kind: 'payout_paid',
    subject: `Payout approved: ${money(p.net, p.currency)} from ${p.campaignTitle}`,
    link: p.link,
    text: `Your payout from “${p.campaignTitle}” was approved: ${money(p.gross, p.currency)}, less the platform fee of ${money(p.fee, p.currency)}, makes ${money(p.net, p.currency)} to your PayPal account.\n\nYour campaign: ${p.link}\n\n— Kindling`,
  }),
  rejected: (to: string, p: PayoutNews & { reason: string }): MailMessage => ({
    to,
    kind: 'payout_rejected',
    subject: `Payout not approved: ${p.campaignTitle}`,
    link: p.link,
    text: `Your payout request of ${money(p.gross, p.currency)} from “${p.campaignTitle}” was not approved.\n\nReason: ${p.reason}\n\nThe money is available again; you can request a payout again from the campaign page: ${p.link}\n\n— Kindling`,
  }),
  disputeStatus: (to: string, p: { campaignTitle: string; status: string; notes: string; link: string }): MailMessage => ({
    to,
    kind: 'dispute_status',
    subject: `Your dispute about ${p.campaignTitle} is now ${p.status.replace('_', ' ')}`,
    link: p.link,
    text: `An administrator changed the status of your dispute about “${p.campaignTitle}” to ${p.status.replace('_', ' ')}.${p.notes ? `\n\nNotes: ${p.notes}` : ''}\n\nYour disputes: ${p.link}\n\n— Kindling`,
  }),
  /** To the owner: someone with a stake disputed the campaign's payouts (or one of them), which are held until an admin decides. */
  payoutsHeld: (to: string, p: { campaignTitle: string; reason: string; onePayout: boolean; link: string }): MailMessage => ({
    to,
    kind: 'payouts_held',
    subject: `Payouts of ${p.campaignTitle} are on hold: a dispute was raised`,
    link: p.link,
    text: `A dispute was raised about ${p.onePayout ? 'a payout' : 'the payouts'} of “${p.campaignTitle}”.\n\nReason given: ${p.reason}\n\nAn administrator is reviewing it. Until it is settled, ${p.onePayout ? 'that payout cannot be approved' : 'no payout of this campaign can be requested or approved'}; the money stays in your campaign. You can see the hold in the campaign’s Funds: ${p.link}\n\n— Kindling`,
  }),
  /** To the owner: a dispute about their campaign that holds no payout (who raised it is never said). */
  disputeRaised: (to: string, p: { campaignTitle: string; reason: string; link: string }): MailMessage => ({
    to,
    kind: 'dispute_raised',
    subject: `A dispute was raised about ${p.campaignTitle}`,
    link: p.link,
    text: `Someone raised a dispute about your campaign “${p.campaignTitle}”.\n\nReason given: ${p.reason}\n\nAn administrator is reviewing it and may contact you. Your payouts are not held by it. Your campaign: ${p.link}\n\n— Kindling`,
  }),
  /** To the owner: a dispute that held the campaign's payouts was resolved or rejected. */
  payoutsHoldEnded: (to: string, p: { campaignTitle: string; status: string; onePayout: boolean; link: string }): MailMessage => ({
    to,
    kind: 'payouts_hold_ended',
    subject: `Payouts of ${p.campaignTitle}: the dispute was ${p.status}`,
    link: p.link,
    text: `An administrator ${p.status === 'resolved' ? 'resolved' : 'rejected'} the dispute about ${p.onePayout ? 'a payout' : 'the payouts'} of “${p.campaignTitle}”. That dispute no longer holds ${p.onePayout ? 'that payout' : 'your payouts'}.\n\nYour campaign’s Funds: ${p.link}\n\n— Kindling`,
  }),
};
