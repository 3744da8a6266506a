import Stripe from 'stripe';
import {
  PaymentProviderError,
  WebhookSignatureError,
  type ChargeResult,
  type ChargeSaved,
  type PaymentEvent,
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
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(rawBody, signature, webhookSecret);
    } catch (e) {
      if (e instanceof Stripe.errors.StripeSignatureVerificationError) throw withCause(new WebhookSignatureError(), e);
      throw e;
    }

    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = event.data.object;
        const donationId = sessionDonationId(session);
        const pi = idOf(session.payment_intent);
        // 'unpaid': a delayed payment method; checkout.session.async_payment_* follows
        if (!donationId || !pi || session.mode !== 'payment' || session.payment_status !== 'paid') return null;
        const paymentMethodRef = session.customer ? await savedMethodOf(pi) : undefined;
        return {
          eventId: event.id,
          type: 'payment.succeeded',
          donationId,
          providerRef: pi,
          ...(paymentMethodRef ? { paymentMethodRef } : {}),
        };
      }
      case 'checkout.session.async_payment_failed':
      case 'checkout.session.expired': {
        const session = event.data.object;
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
        const pi = event.data.object;
        const donationId = offSessionDonationId(pi);
        if (!donationId) return null;
        const customer = idOf(pi.customer);
        const method = idOf(pi.payment_method);
        return {
          eventId: event.id,
          type: 'payment.succeeded',
          donationId,
          providerRef: pi.id,
          ...(customer && method ? { paymentMethodRef: `${customer}:${method}` } : {}),
        };
      }
      case 'payment_intent.payment_failed': {
        const pi = event.data.object;
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
    const customer = idOf(pi.customer);
    const method = idOf(pi.payment_method);
    if (pi.setup_future_usage !== 'off_session' || !customer || !method) return undefined;
    return `${customer}:${method}`;
  }

  return {
    name: 'stripe',
    testMode: /^[sr]k_test_/.test(opts.secretKey), // a secret or restricted test key
    collectsCardInApp: false,
    startPayment,
    chargeSaved,
    refund,
    parseWebhook,
  };
}

function idOf(v: string | { id: string } | null | undefined): string | null {
  if (!v) return null;
  return typeof v === 'string' ? v : v.id;
}

function sessionDonationId(s: Stripe.Checkout.Session): string | null {
  return s.metadata?.donationId || s.client_reference_id || null;
}

function offSessionDonationId(pi: Stripe.PaymentIntent): string | null {
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
