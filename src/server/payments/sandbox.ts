import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { dataDirKey } from '../lib/keys';
import { M } from '../../shared/messages';
import { TEST_CARDS } from '../../shared/schemas/donations';
import {
  WebhookSignatureError,
  type ChargeResult,
  type ChargeSaved,
  type PaymentEvent,
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

/**
 * The built-in payment provider: a card processor in test mode, with no network. The test cards
 * decide the outcome (TEST_CARDS), and the outcome comes back as a signed webhook event handed
 * to `deliver`, which is the function the webhook route calls: the app's `pending -> succeeded`
 * step runs the same code as for a real provider. Saved payment methods remember their card, so
 * a later month's charge has the same outcome.
 */
export function createSandboxProvider(opts: { key: Buffer; deliver: WebhookSink }): PaymentProvider {
  const { key } = opts;
  const ref = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
  /** A donation's first payment is named after it (a later month's charge gets a new name). */
  const paymentRefFor = (donationId: string) => `sbx_pay_${donationId.replaceAll('-', '')}`;

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
      const eventId = ref('sbx_evt');
      await emit(
        outcome.ok
          ? { eventId, type: 'payment.succeeded', donationId: p.donationId, providerRef, paymentMethodRef: p.saveForLater ? `sbx_pm_${p.card}` : undefined }
          : { eventId, type: 'payment.failed', donationId: p.donationId, providerRef, message: outcome.message },
      );
      return { kind: 'submitted', providerRef };
    },

    async chargeSaved(p: ChargeSaved): Promise<ChargeResult> {
      const card = p.paymentMethodRef.replace(/^sbx_pm_/, '');
      const outcome = OUTCOMES[card] ?? { ok: false as const, message: M.cardDeclined };
      const providerRef = ref('sbx_pay');
      // like a real processor, an off-session decline is the answer itself
      if (!outcome.ok) return { kind: 'failed', providerRef, message: outcome.message };
      await emit({ eventId: ref('sbx_evt'), type: 'payment.succeeded', donationId: p.donationId, providerRef, paymentMethodRef: p.paymentMethodRef });
      return { kind: 'submitted', providerRef };
    },

    async refund(_p: RefundPayment) {
      return { refundRef: ref('sbx_re') };
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
      let event: PaymentEvent;
      try {
        event = JSON.parse(rawBody.toString('utf8')) as PaymentEvent;
      } catch {
        throw new WebhookSignatureError('Webhook body is not JSON');
      }
      if (event.type !== 'payment.succeeded' && event.type !== 'payment.failed') return null;
      return event;
    },
  };
}
