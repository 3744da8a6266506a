import Stripe from 'stripe';
import { z } from 'zod';
import {
  PaymentProviderError,
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
} from './port';

/**
 * The Stripe provider: payers pay on Stripe Checkout, later months of a monthly donation are
 * off-session PaymentIntents on the card that Checkout saved, and outcomes arrive as webhooks.
 *
 * References:
 * - a payment's providerRef is its PaymentIntent id (`pi_...`), which is what refunds take.
 *   Checkout creates the PaymentIntent only when the payer confirms, so startPayment answers
 *   with the session id (`cs_...`) and the checkout's events carry the PaymentIntent id;
 *   refund still accepts a session id and looks its PaymentIntent up.
 * - a saved payment method is `cus_...:pm_...` (the customer Checkout created and the card it
 *   attached to it).
 *
 * PaymentIntents carry `metadata.flow`: `checkout` for those Checkout creates, `off_session`
 * for chargeSaved's. Only the latter are turned into events from `payment_intent.*`: a checkout's
 * outcome comes from its `checkout.session.*` events, and a declined card inside Checkout is
 * not a failed donation (the payer may try another card on the same page).
 *
 * Money Stripe moves on its own comes from `charge.refunded` (a refund, also one made in the
 * dashboard) and `charge.dispute.created` / `charge.dispute.closed` (a chargeback); they name the
 * payment by its PaymentIntent. Each handled event's object is checked against a schema of the
 * fields the app reads: a signed event that lacks one is a WebhookPayloadError, never a TypeError.
 */

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** Where API requests go instead of Stripe (tests). */
  apiBase?: { host: string; port: number; protocol: 'http' | 'https' };
}

const FLOW_CHECKOUT = 'checkout';
const FLOW_OFF_SESSION = 'off_session';

const MSG_START_FAILED = 'The payment could not be started. Please try again later.';
const MSG_UNREACHABLE = 'The payment provider could not be reached. Please try again later.';
const MSG_NOT_CONFIGURED = 'The payment provider refused the request: its configuration needs checking.';
const MSG_CHECKOUT_FAILED = 'The payment did not go through.';
const MSG_CHECKOUT_EXPIRED = 'The checkout expired before the payment was made.';
const MSG_PAYMENT_FAILED = 'The payment failed.';
const MSG_SAVED_METHOD_UNUSABLE = 'The saved payment method can no longer be charged.';
const MSG_PAYMENT_CANCELED = 'The payment was canceled.';

/**
 * lookupPayment without a reference (the request that started the payment died before the app
 * stored what Stripe answered) looks at the Checkout Sessions and PaymentIntents Stripe created
 * around the donation's creation: from a little before it (clocks differ) to well after the
 * longest a request with its retries can take.
 */
const LOOKUP_BEFORE_S = 10 * 60;
const LOOKUP_AFTER_S = 60 * 60;

// ---- the parts of Stripe's webhook objects the app reads ----------------------------------------

const stripeId = z.string().min(1).max(255);
const metadata = z.record(z.string(), z.string());
/** An expandable field: the id, or the object when expanded (webhooks send the id). */
const expandable = z.union([stripeId, z.object({ id: stripeId, metadata: metadata.optional() })]);
const minor = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** Stripe writes currencies in lower case; the app in upper case ('USD'). */
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/)
  .transform((c) => c.toUpperCase());

/** A signed body: an event whose object the handled types below check. */
const StripeEvent = z.object({
  id: stripeId,
  type: z.string().min(1),
  data: z.object({ object: z.unknown() }),
});

/** What tells a checkout of ours (a payment for a donation) from any other on the account. */
const CheckoutSession = z.object({
  id: stripeId,
  mode: z.string(),
  payment_status: z.string(),
  client_reference_id: stripeId.nullable(),
  metadata: metadata.nullable(),
  payment_intent: expandable.nullable(),
});

/** A paid checkout of ours: what was paid, and by which PaymentIntent. */
const PaidCheckoutSession = CheckoutSession.extend({
  payment_intent: expandable,
  customer: expandable.nullable(),
  amount_total: minor,
  currency,
});

const PaymentIntentSucceeded = z.object({
  id: stripeId,
  metadata,
  amount_received: minor,
  currency,
  customer: expandable.nullable(),
  payment_method: expandable.nullable(),
});

const PaymentIntentFailed = z.object({
  id: stripeId,
  metadata,
  last_payment_error: z.object({ message: z.string().optional() }).nullish(),
});

/** A refunded charge: `amount_refunded` is all that has been refunded of it so far. */
const RefundedCharge = z.object({
  id: stripeId,
  metadata,
  // null for a charge made without a PaymentIntent, which the app never makes
  payment_intent: expandable.nullable(),
  amount_refunded: minor,
  currency,
});

const Dispute = z.object({
  id: stripeId,
  payment_intent: expandable.nullable(),
  // only read for the donation an expanded charge names
  charge: expandable.optional(),
  amount: minor,
  currency,
  reason: z.string().max(200),
  status: z.string(),
});

const ClosedDispute = Dispute.extend({
  // fee is negative on the transaction that gives a fee back (a won dispute, in some countries)
  balance_transactions: z.array(z.object({ fee: z.number().int(), currency })),
});

/** The outcome of a closed dispute, by its final status. */
const DISPUTE_OUTCOMES: Record<string, 'won' | 'lost'> = {
  won: 'won',
  // an inquiry (no money was withdrawn) that ended without becoming a chargeback
  warning_closed: 'won',
  // stopped before it became a chargeback (Visa RDR): nothing is withdrawn, and the refund that
  // stopped it arrives as its own charge.refunded
  prevented: 'won',
  lost: 'lost',
};

export function createStripeProvider(opts: StripeProviderOptions): PaymentProvider {
  const stripe = new Stripe(opts.secretKey, {
    // The SDK pins the API version it was built for; requests are safe to retry because each
    // one that creates something carries the caller's idempotency key.
    maxNetworkRetries: 2,
    timeout: 30_000,
    ...(opts.apiBase ?? {}),
  });
  const webhookSecret = opts.webhookSecret;

  async function startPayment(p: StartPayment): Promise<StartResult> {
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      submit_type: 'donate',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: p.currency.toLowerCase(),
            unit_amount: p.amount,
            product_data: { name: `Donation to ${p.campaignTitle}` },
          },
        },
      ],
      customer_email: p.email,
      client_reference_id: p.donationId,
      metadata: { donationId: p.donationId },
      payment_intent_data: {
        metadata: { donationId: p.donationId, flow: FLOW_CHECKOUT },
        ...(p.saveForLater ? { setup_future_usage: 'off_session' as const } : {}),
      },
      ...(p.saveForLater ? { customer_creation: 'always' as const } : {}),
      success_url: p.successUrl,
      cancel_url: p.cancelUrl,
    };
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.create(params, { idempotencyKey: p.idempotencyKey });
    } catch (e) {
      throw providerError(e, MSG_START_FAILED);
    }
    if (!session.url) throw withCause(new PaymentProviderError(MSG_START_FAILED), new Error(`checkout session ${session.id} has no url`));
    return { kind: 'redirect', providerRef: idOf(session.payment_intent) ?? session.id, checkoutUrl: session.url };
  }

  async function chargeSaved(p: ChargeSaved): Promise<ChargeResult> {
    const saved = parsePaymentMethodRef(p.paymentMethodRef);
    if (!saved) return { kind: 'failed', providerRef: null, message: MSG_SAVED_METHOD_UNUSABLE };
    try {
      const pi = await stripe.paymentIntents.create(
        {
          amount: p.amount,
          currency: p.currency.toLowerCase(),
          customer: saved.customer,
          payment_method: saved.paymentMethod,
          confirm: true,
          off_session: true,
          metadata: { donationId: p.donationId, flow: FLOW_OFF_SESSION },
        },
        { idempotencyKey: p.idempotencyKey },
      );
      return { kind: 'submitted', providerRef: pi.id };
    } catch (e) {
      if (e instanceof Stripe.errors.StripeCardError) {
        // declined, or the bank wants the payer present (authentication_required)
        return { kind: 'failed', providerRef: e.payment_intent?.id ?? null, message: e.message || MSG_PAYMENT_FAILED };
      }
      if (e instanceof Stripe.errors.StripeInvalidRequestError) {
        // the card or customer is gone (detached, deleted) or cannot be used for this charge
        return { kind: 'failed', providerRef: e.payment_intent?.id ?? null, message: MSG_SAVED_METHOD_UNUSABLE };
      }
      throw providerError(e, MSG_UNREACHABLE);
    }
  }

  async function refund(p: RefundPayment): Promise<{ refundRef: string }> {
    try {
      let paymentIntent: string | null = p.providerRef;
      if (p.providerRef.startsWith('cs_')) {
        const session = await stripe.checkout.sessions.retrieve(p.providerRef);
        paymentIntent = idOf(session.payment_intent);
        if (!paymentIntent) throw new PaymentProviderError('This payment was never completed, so there is nothing to refund.');
      }
      const r = await stripe.refunds.create({ payment_intent: paymentIntent, metadata: { donationId: p.donationId } }, { idempotencyKey: p.idempotencyKey });
      return { refundRef: r.id };
    } catch (e) {
      if (e instanceof PaymentProviderError) throw e;
      throw providerError(e, refundMessage(e));
    }
  }

  async function parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent | null> {
    const signature = header(headers, 'stripe-signature');
    if (!signature) throw new WebhookSignatureError('Missing Stripe-Signature header');
    let body: unknown;
    try {
      body = stripe.webhooks.constructEvent(rawBody, signature, webhookSecret);
    } catch (e) {
      if (e instanceof Stripe.errors.StripeSignatureVerificationError) throw withCause(new WebhookSignatureError(), e);
      // the signature is checked before the body is read: a good signature on a body that is not JSON
      if (e instanceof SyntaxError) throw withCause(new WebhookPayloadError('the body is not JSON'), e);
      throw e;
    }
    const event = parsePayload(StripeEvent, body, 'event');
    const object = event.data.object;

    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = parsePayload(CheckoutSession, object, event.type);
        const donationId = sessionDonationId(session);
        // 'unpaid': a delayed payment method; checkout.session.async_payment_* follows
        if (!donationId || session.mode !== 'payment' || session.payment_status !== 'paid') return null;
        const paid = parsePayload(PaidCheckoutSession, object, event.type);
        const pi = idOf(paid.payment_intent);
        const paymentMethodRef = paid.customer ? await savedMethodOf(pi) : undefined;
        return {
          eventId: event.id,
          type: 'payment.succeeded',
          donationId,
          providerRef: pi,
          amount: paid.amount_total,
          currency: paid.currency,
          ...(paymentMethodRef ? { paymentMethodRef } : {}),
        };
      }
      case 'checkout.session.async_payment_failed':
      case 'checkout.session.expired': {
        const session = parsePayload(CheckoutSession, object, event.type);
        const donationId = sessionDonationId(session);
        if (!donationId || session.mode !== 'payment') return null;
        return {
          eventId: event.id,
          type: 'payment.failed',
          donationId,
          providerRef: idOf(session.payment_intent),
          message: event.type === 'checkout.session.expired' ? MSG_CHECKOUT_EXPIRED : MSG_CHECKOUT_FAILED,
        };
      }
      case 'payment_intent.succeeded': {
        const pi = parsePayload(PaymentIntentSucceeded, object, event.type);
        const donationId = offSessionDonationId(pi);
        if (!donationId) return null;
        const customer = pi.customer && idOf(pi.customer);
        const method = pi.payment_method && idOf(pi.payment_method);
        return {
          eventId: event.id,
          type: 'payment.succeeded',
          donationId,
          providerRef: pi.id,
          amount: pi.amount_received,
          currency: pi.currency,
          ...(customer && method ? { paymentMethodRef: `${customer}:${method}` } : {}),
        };
      }
      case 'payment_intent.payment_failed': {
        const pi = parsePayload(PaymentIntentFailed, object, event.type);
        const donationId = offSessionDonationId(pi);
        if (!donationId) return null;
        return {
          eventId: event.id,
          type: 'payment.failed',
          donationId,
          providerRef: pi.id,
          message: pi.last_payment_error?.message || MSG_PAYMENT_FAILED,
        };
      }
      case 'charge.refunded': {
        const charge = parsePayload(RefundedCharge, object, event.type);
        if (!charge.payment_intent) return null;
        return {
          eventId: event.id,
          type: 'payment.refunded',
          donationId: charge.metadata.donationId || metadataDonationId(charge.payment_intent),
          providerRef: idOf(charge.payment_intent),
          refundedTotal: charge.amount_refunded,
          currency: charge.currency,
        };
      }
      case 'charge.dispute.created': {
        const dispute = parsePayload(Dispute, object, event.type);
        if (!dispute.payment_intent) return null;
        return {
          eventId: event.id,
          type: 'chargeback.opened',
          donationId: disputeDonationId(dispute),
          providerRef: idOf(dispute.payment_intent),
          chargebackRef: dispute.id,
          amount: dispute.amount,
          currency: dispute.currency,
          reason: dispute.reason,
        };
      }
      case 'charge.dispute.closed': {
        const dispute = parsePayload(ClosedDispute, object, event.type);
        if (!dispute.payment_intent) return null;
        const outcome = DISPUTE_OUTCOMES[dispute.status];
        if (!outcome) throw new WebhookPayloadError(`${event.type}: status: not the status of a closed dispute`);
        // The dispute's fee is on the balance transactions it made (a withdrawal, and a
        // reinstatement when it is won, which may give the fee back). They are in the account's
        // settlement currency: only a fee in the dispute's own currency can be booked against the
        // donation, so a fee in another currency counts as 0 (the app has no rate to convert it).
        const fee = dispute.balance_transactions.filter((t) => t.currency === dispute.currency).reduce((sum, t) => sum + t.fee, 0);
        return {
          eventId: event.id,
          type: 'chargeback.closed',
          donationId: disputeDonationId(dispute),
          providerRef: idOf(dispute.payment_intent),
          chargebackRef: dispute.id,
          outcome,
          amount: dispute.amount,
          currency: dispute.currency,
          fee: Math.max(0, fee),
        };
      }
      // charge.dispute.updated / funds_withdrawn / funds_reinstated: the hold starts with
      // created and ends with closed; everything else is not something the app acts on
      default:
        return null;
    }
  }

  /** The `cus_...:pm_...` a checkout saved, from its PaymentIntent (the event does not carry the card). */
  async function savedMethodOf(paymentIntentId: string): Promise<string | undefined> {
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.retrieve(paymentIntentId);
    } catch (e) {
      // the webhook is answered with an error, so Stripe delivers it again later
      throw providerError(e, MSG_UNREACHABLE);
    }
    return savedMethodRef(pi);
  }

  /**
   * What Stripe knows of a payment that stayed pending. A reference is looked up as it is (a
   * PaymentIntent, or the Checkout Session startPayment answered with). Without one, the
   * Checkout Sessions and then the PaymentIntents created around the donation are listed and
   * matched on the donation id they carry: listing is read-after-write consistent and works on
   * every account, where the Search API may lag and cannot search Checkout Sessions (a checkout
   * whose payer has not paid yet has no PaymentIntent to search for).
   */
  async function lookupPayment(p: { donationId: string; providerRef: string | null; createdAt: Date }): Promise<PaymentLookup> {
    try {
      const ref = p.providerRef;
      if (ref?.startsWith('pi_')) {
        const pi = await retrieveOrNull(() => stripe.paymentIntents.retrieve(ref));
        return pi ? intentLookup(pi, pi.metadata?.flow !== FLOW_OFF_SESSION) : { status: 'unknown' };
      }
      if (ref?.startsWith('cs_')) {
        const session = await retrieveOrNull(() => stripe.checkout.sessions.retrieve(ref));
        return session ? await sessionLookup(session) : { status: 'unknown' };
      }
      // a reference this adapter never makes
      if (ref) return { status: 'unknown' };

      const at = Math.floor(p.createdAt.getTime() / 1000);
      const created = { gte: at - LOOKUP_BEFORE_S, lte: at + LOOKUP_AFTER_S };
      const sessions: Stripe.Checkout.Session[] = [];
      for await (const s of stripe.checkout.sessions.list({ created, limit: 100 })) {
        if (sessionDonationId(s) === p.donationId) sessions.push(s);
      }
      // one checkout per donation (its idempotency key); should there be more, the one that went furthest
      const rank = (s: Stripe.Checkout.Session) => ['expired', 'open', 'complete'].indexOf(s.status ?? '');
      const session = sessions.sort((a, b) => rank(b) - rank(a))[0];
      if (session) return await sessionLookup(session);

      // a later month's charge (chargeSaved) has no checkout
      const intents: Stripe.PaymentIntent[] = [];
      for await (const pi of stripe.paymentIntents.list({ created, limit: 100 })) {
        if (pi.metadata?.donationId === p.donationId) intents.push(pi);
      }
      const pi = intents.find((i) => i.status === 'succeeded') ?? intents[0];
      return pi ? intentLookup(pi, pi.metadata?.flow !== FLOW_OFF_SESSION) : { status: 'unknown' };
    } catch (e) {
      if (e instanceof PaymentProviderError) throw e;
      throw providerError(e, MSG_UNREACHABLE);
    }
  }

  async function sessionLookup(session: Stripe.Checkout.Session): Promise<PaymentLookup> {
    const piId = idOf(session.payment_intent);
    if (session.status === 'expired') return { status: 'failed', providerRef: piId, message: MSG_CHECKOUT_EXPIRED };
    if (session.status !== 'complete') return { status: 'pending' };
    if (!piId) return { status: 'failed', providerRef: null, message: MSG_CHECKOUT_FAILED };
    // complete: paid, or a delayed payment method still processing, or one that failed (the
    // payer has left the page and cannot try again): its PaymentIntent says which
    const pi = await stripe.paymentIntents.retrieve(piId);
    return intentLookup(pi, false);
  }

  return {
    name: 'stripe',
    testMode: /^[sr]k_test_/.test(opts.secretKey), // a secret or restricted test key
    collectsCardInApp: false,
    startPayment,
    chargeSaved,
    refund,
    parseWebhook,
    lookupPayment,
  };
}

/**
 * A PaymentIntent as a lookup. `payerMayRetry`: it belongs to a checkout page that may still be
 * open, where a declined card is not the end (the page's expiry cancels the PaymentIntent).
 */
function intentLookup(pi: Stripe.PaymentIntent, payerMayRetry: boolean): PaymentLookup {
  switch (pi.status) {
    case 'succeeded': {
      const paymentMethodRef = savedMethodRef(pi);
      return {
        status: 'succeeded',
        providerRef: pi.id,
        amount: pi.amount_received,
        currency: pi.currency.toUpperCase(),
        ...(paymentMethodRef ? { paymentMethodRef } : {}),
      };
    }
    case 'canceled':
      return { status: 'failed', providerRef: pi.id, message: MSG_PAYMENT_CANCELED };
    case 'requires_payment_method':
      if (payerMayRetry) return { status: 'pending' };
      return { status: 'failed', providerRef: pi.id, message: pi.last_payment_error?.message || MSG_PAYMENT_FAILED };
    default:
      // requires_action, processing, ...: the payer or the bank may still finish it
      return { status: 'pending' };
  }
}

/** The `cus_...:pm_...` a PaymentIntent charged and keeps for later months, if it keeps one. */
function savedMethodRef(pi: Stripe.PaymentIntent): string | undefined {
  const customer = idOf(pi.customer);
  const method = idOf(pi.payment_method);
  const keeps = pi.metadata?.flow === FLOW_OFF_SESSION || pi.setup_future_usage === 'off_session';
  return keeps && customer && method ? `${customer}:${method}` : undefined;
}

/** A retrieve that answers null when Stripe has no such object. */
async function retrieveOrNull<T>(get: () => Promise<T>): Promise<T | null> {
  try {
    return await get();
  } catch (e) {
    if (e instanceof Stripe.errors.StripeInvalidRequestError && e.code === 'resource_missing') return null;
    throw e;
  }
}

/** A webhook object checked against the schema of what the app reads of it. */
function parsePayload<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new WebhookPayloadError(`${what}: ${issue.path.map(String).join('.') || 'object'}: ${issue.message}`);
}

/** The donation an expanded PaymentIntent or charge names (webhooks send ids, which name none). */
function metadataDonationId(ref: string | { metadata?: Record<string, string> } | undefined): string | null {
  return (typeof ref === 'object' ? ref.metadata?.donationId : undefined) || null;
}

function disputeDonationId(d: z.output<typeof Dispute>): string | null {
  return metadataDonationId(d.payment_intent ?? undefined) ?? metadataDonationId(d.charge);
}

function idOf(v: string | { id: string }): string;
function idOf(v: string | { id: string } | null | undefined): string | null;
function idOf(v: string | { id: string } | null | undefined): string | null {
  if (!v) return null;
  return typeof v === 'string' ? v : v.id;
}

function sessionDonationId(s: { metadata: Record<string, string> | null; client_reference_id: string | null }): string | null {
  return s.metadata?.donationId || s.client_reference_id || null;
}

function offSessionDonationId(pi: { metadata: Record<string, string> }): string | null {
  if (pi.metadata?.flow !== FLOW_OFF_SESSION) return null;
  return pi.metadata.donationId || null;
}

function parsePaymentMethodRef(ref: string): { customer: string; paymentMethod: string } | null {
  const m = /^(cus_[A-Za-z0-9]+):(pm_[A-Za-z0-9]+)$/.exec(ref);
  return m ? { customer: m[1], paymentMethod: m[2] } : null;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    // a repeated signature header is not something Stripe sends
    return typeof v === 'string' && v !== '' ? v : null;
  }
  return null;
}

function refundMessage(e: unknown): string {
  if (e instanceof Stripe.errors.StripeError) {
    if (e.code === 'charge_already_refunded') return 'This payment has already been refunded.';
    if (e.code === 'charge_disputed') return 'This payment is disputed and cannot be refunded.';
    if (e.code === 'resource_missing') return 'The payment provider does not know this payment.';
    if (e instanceof Stripe.errors.StripeInvalidRequestError || e instanceof Stripe.errors.StripeCardError) {
      return 'The payment provider refused the refund.';
    }
  }
  return MSG_UNREACHABLE;
}

/** A PaymentProviderError with a message safe to show; Stripe's own error stays as its cause, for logs. */
function providerError(e: unknown, message: string): PaymentProviderError {
  if (e instanceof Stripe.errors.StripeAuthenticationError || e instanceof Stripe.errors.StripePermissionError) {
    message = MSG_NOT_CONFIGURED;
  }
  return withCause(new PaymentProviderError(message), e);
}

function withCause<E extends Error>(err: E, cause: unknown): E {
  err.cause = cause;
  return err;
}
