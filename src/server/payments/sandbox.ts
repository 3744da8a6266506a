import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { dataDirKey } from '../lib/keys';
import { M } from '../../shared/messages';
import { TEST_CARDS, type SandboxSimulation } from '../../shared/schemas/donations';
import {
  WebhookPayloadError,
  WebhookSignatureError,
  type ChargeResult,
  type ChargeSaved,
  type PaymentEvent,
  type PaymentLookup,
  type PaymentProvider,
  type RefundPayment,
  type StartPayment,
  type StartResult,
  type WebhookSink,
} from './port';

export const SANDBOX_SIGNATURE_HEADER = 'kindling-sandbox-signature';

/** What each test card does; any other number is refused before a payment starts. */
const OUTCOMES: Record<string, { ok: true } | { ok: false; message: string }> = {
  [TEST_CARDS.succeeds]: { ok: true },
  [TEST_CARDS.declined]: { ok: false, message: M.cardDeclined },
  [TEST_CARDS.insufficientFunds]: { ok: false, message: M.insufficientFunds },
};

/** The sandbox's signing key: made once into the data directory, then read from there. */
export function sandboxKey(dataDir: string): Buffer {
  return dataDirKey(dataDir, 'sandbox-webhook.key');
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as real providers sign. */
export function signSandboxPayload(key: Buffer, body: string, at = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', key).update(`${at}.${body}`).digest('hex');
  return `t=${at},v1=${mac}`;
}

/** How old a signed event may be (seconds), so a captured request cannot be replayed later. */
const TOLERANCE_S = 300;

/** The dispute fee the sandbox's processor takes for a lost chargeback (minor units), as card processors do. */
export const SANDBOX_DISPUTE_FEE = 1500;

/** The payments the sandbox remembers for lookupPayment (the newest ones; it forgets the oldest past this). */
const REMEMBERED_PAYMENTS = 10_000;

const id = z.string().min(1).max(200);
const minor = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const currency = z.string().regex(/^[A-Z]{3}$/);
const optionalId = id.nullable();

/** The sandbox's events as it signs them: a signed body that is not one of these is malformed (400). */
const SandboxEvent = z.discriminatedUnion('type', [
  z.object({ eventId: id, type: z.literal('payment.succeeded'), donationId: id, providerRef: id, amount: minor, currency, paymentMethodRef: id.optional() }),
  z.object({ eventId: id, type: z.literal('payment.failed'), donationId: id, providerRef: optionalId, message: z.string().min(1).max(1000) }),
  z.object({ eventId: id, type: z.literal('payment.refunded'), donationId: optionalId, providerRef: id, refundedTotal: minor, currency }),
  z.object({
    eventId: id,
    type: z.literal('chargeback.opened'),
    donationId: optionalId,
    providerRef: id,
    chargebackRef: id,
    amount: minor,
    currency,
    reason: z.string().max(200),
  }),
  z.object({
    eventId: id,
    type: z.literal('chargeback.closed'),
    donationId: optionalId,
    providerRef: id,
    chargebackRef: id,
    outcome: z.enum(['won', 'lost']),
    amount: minor,
    currency,
    fee: minor,
  }),
]) satisfies z.ZodType<PaymentEvent>;

/** The sandbox's own extra: what an admin uses to try refunds and chargebacks without a real processor. */
export interface SandboxProvider extends PaymentProvider {
  /**
   * Makes the processor act on a succeeded payment as a real one would on its own: a refund from
   * its dashboard (`refundedTotal`: what has been refunded of it in all), or a chargeback opened,
   * won or lost. The outcome comes back as a signed event through the webhook path.
   */
  simulate(p: { action: SandboxSimulation; donationId: string; providerRef: string; amount: number; currency: string; refundedTotal?: number }): Promise<void>;
}

export function isSandbox(p: PaymentProvider): p is SandboxProvider {
  return typeof (p as Partial<SandboxProvider>).simulate === 'function';
}

/**
 * The built-in payment provider: a card processor in test mode, with no network. The test cards
 * decide the outcome (TEST_CARDS), and the outcome comes back as a signed webhook event handed
 * to `deliver`, which is the function the webhook route calls: the app's `pending -> succeeded`
 * step runs the same code as for a real provider. Saved payment methods remember their card, so
 * a later month's charge has the same outcome. Refunds and chargebacks that a real processor
 * starts on its own side are started here by an admin (`simulate`). The processor lives in this
 * process: after a restart it knows none of the payments it took (lookupPayment answers unknown).
 */
export function createSandboxProvider(opts: { key: Buffer; deliver: WebhookSink }): SandboxProvider {
  const { key } = opts;
  const ref = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
  /** A donation's first payment is named after it (a later month's charge gets a new name). */
  const paymentRefFor = (donationId: string) => `sbx_pay_${donationId.replaceAll('-', '')}`;
  /** What the processor did with each payment it was asked for, by donation (the newest REMEMBERED_PAYMENTS). */
  const payments = new Map<string, PaymentLookup>();
  const remember = (donationId: string, outcome: PaymentLookup) => {
    payments.delete(donationId);
    payments.set(donationId, outcome);
    if (payments.size > REMEMBERED_PAYMENTS) payments.delete(payments.keys().next().value!);
  };

  async function emit(event: PaymentEvent): Promise<void> {
    const body = JSON.stringify(event);
    await opts.deliver('sandbox', Buffer.from(body), { [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(key, body), 'content-type': 'application/json' });
  }

  return {
    name: 'sandbox',
    testMode: true,
    collectsCardInApp: true,
    inProcess: true,

    paymentRefFor,

    checkCard(card: string) {
      return OUTCOMES[card] ? null : M.cardNotTestCard;
    },

    async startPayment(p: StartPayment): Promise<StartResult> {
      const outcome = (p.card && OUTCOMES[p.card]) || { ok: false as const, message: M.cardNotTestCard };
      const providerRef = paymentRefFor(p.donationId);
      const paymentMethodRef = p.saveForLater ? `sbx_pm_${p.card}` : undefined;
      remember(
        p.donationId,
        outcome.ok
          ? { status: 'succeeded', providerRef, amount: p.amount, currency: p.currency, paymentMethodRef }
          : { status: 'failed', providerRef, message: outcome.message },
      );
      const eventId = ref('sbx_evt');
      await emit(
        outcome.ok
          ? { eventId, type: 'payment.succeeded', donationId: p.donationId, providerRef, amount: p.amount, currency: p.currency, paymentMethodRef }
          : { eventId, type: 'payment.failed', donationId: p.donationId, providerRef, message: outcome.message },
      );
      return { kind: 'submitted', providerRef };
    },

    async chargeSaved(p: ChargeSaved): Promise<ChargeResult> {
      const card = p.paymentMethodRef.replace(/^sbx_pm_/, '');
      const outcome = OUTCOMES[card] ?? { ok: false as const, message: M.cardDeclined };
      const providerRef = ref('sbx_pay');
      // like a real processor, an off-session decline is the answer itself
      if (!outcome.ok) {
        remember(p.donationId, { status: 'failed', providerRef, message: outcome.message });
        return { kind: 'failed', providerRef, message: outcome.message };
      }
      remember(p.donationId, { status: 'succeeded', providerRef, amount: p.amount, currency: p.currency, paymentMethodRef: p.paymentMethodRef });
      await emit({
        eventId: ref('sbx_evt'),
        type: 'payment.succeeded',
        donationId: p.donationId,
        providerRef,
        amount: p.amount,
        currency: p.currency,
        paymentMethodRef: p.paymentMethodRef,
      });
      return { kind: 'submitted', providerRef };
    },

    async refund(_p: RefundPayment) {
      return { refundRef: ref('sbx_re') };
    },

    async lookupPayment(p) {
      return payments.get(p.donationId) ?? { status: 'unknown' };
    },

    async simulate(p) {
      const base = { eventId: ref('sbx_evt'), donationId: p.donationId, providerRef: p.providerRef, currency: p.currency };
      // the chargeback is named after the payment, so that opening and closing it name the same one
      const chargebackRef = `sbx_dp_${p.providerRef.replace(/^sbx_pay_/, '')}`;
      if (p.action === 'refund') await emit({ ...base, type: 'payment.refunded', refundedTotal: p.refundedTotal ?? p.amount });
      else if (p.action === 'chargeback') await emit({ ...base, type: 'chargeback.opened', chargebackRef, amount: p.amount, reason: 'fraudulent' });
      else
        await emit({
          ...base,
          type: 'chargeback.closed',
          chargebackRef,
          outcome: p.action === 'chargeback_won' ? 'won' : 'lost',
          amount: p.amount,
          fee: p.action === 'chargeback_lost' ? SANDBOX_DISPUTE_FEE : 0,
        });
    },

    async parseWebhook(rawBody, headers) {
      const header = headers[SANDBOX_SIGNATURE_HEADER];
      const value = Array.isArray(header) ? header[0] : header;
      const parts = Object.fromEntries((value ?? '').split(',').map((kv) => kv.split('=', 2) as [string, string]));
      const at = Number(parts.t);
      if (!value || !Number.isInteger(at) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) throw new WebhookSignatureError();
      const expected = createHmac('sha256', key).update(`${at}.`).update(rawBody).digest();
      if (!timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'))) throw new WebhookSignatureError();
      if (Math.abs(Date.now() / 1000 - at) > TOLERANCE_S) throw new WebhookSignatureError('Webhook signature has expired');
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new WebhookPayloadError('the body is not JSON');
      }
      const type = (body as { type?: unknown } | null)?.type;
      // an event of a type the app does not act on is acknowledged and changes nothing
      if (typeof type === 'string' && !SandboxEvent.options.some((o) => o.shape.type.value === type)) return null;
      const parsed = SandboxEvent.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new WebhookPayloadError(`${issue.path.join('.') || 'event'}: ${issue.message}`);
      }
      return parsed.data;
    },
  };
}
