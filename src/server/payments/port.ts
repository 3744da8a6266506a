import type { Currency } from '../../shared/constants';

/**
 * The payment provider port: every provider (the built-in sandbox, Stripe) is one of these.
 *
 * The donation state machine is the app's own (`pending -> succeeded | failed`,
 * `succeeded -> refunded`); a provider only starts payments, charges saved payment methods,
 * refunds, and turns its webhook requests into {@link PaymentEvent}s after checking their
 * signature. A payment becomes `succeeded` or `failed` only through an event, so the sandbox's
 * confirmation walks the same code as a real provider's webhook.
 *
 * Amounts are integer minor units.
 */
export interface PaymentProvider {
  /** Stored in donations.provider; also the last part of the webhook path. */
  readonly name: string;
  /** True when no real money moves (the UI says so and asks for a test card). */
  readonly testMode: boolean;
  /** Whether the payer enters a card in the app (sandbox) or on the provider's page (checkoutUrl). */
  readonly collectsCardInApp: boolean;
  /**
   * True when the provider's payments exist only inside this process (the sandbox): a crash that
   * loses a pending donation loses its payment too, so the pending row's commit need not reach
   * the disk on its own (the booking's commit, which is durable, writes it out with itself). A
   * real provider keeps the payment on its side: its pending donation is on disk before it is
   * asked, so that the provider's event always finds it.
   */
  readonly inProcess?: boolean;

  /**
   * For a provider that names a payment after the app's donation: the reference the payment of
   * this donation will have, known before it starts. The pending donation is stored with it, so
   * booking the payment changes no indexed column of the row (see donations_subscription_period_key).
   */
  paymentRefFor?(donationId: string): string;

  /**
   * For providers that take the card in the app: why this card number cannot be used at all
   * (null when it can; a card that will be declined can be used, and is declined).
   */
  checkCard?(card: string): string | null;

  /** Starts paying for a donation (a one-off, or the first month of a monthly one). */
  startPayment(p: StartPayment): Promise<StartResult>;
  /** Charges a payment method saved by an earlier payment, without the payer (a later month). */
  chargeSaved(p: ChargeSaved): Promise<ChargeResult>;
  /** Refunds a succeeded payment in full. Throws {@link PaymentProviderError} when the provider refuses. */
  refund(p: RefundPayment): Promise<{ refundRef: string }>;
  /**
   * A webhook request as an event, after checking its signature against the raw body.
   * Throws {@link WebhookSignatureError} when the signature is missing or wrong; answers null
   * for an event the app does not act on (acknowledged, nothing changes). May ask the provider
   * for details the event does not carry (the saved payment method of a checkout).
   */
  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent | null>;
  /**
   * What the provider knows now of a payment that has stayed pending (the reconciliation job):
   * `succeeded` or `failed` as the event that should have come would have said, or `pending`
   * while the payer may still finish, or `unknown` when the provider never saw it. Throws
   * {@link PaymentProviderError} when the provider cannot be asked.
   */
  lookupPayment(p: { donationId: string; providerRef: string | null; createdAt: Date }): Promise<PaymentLookup>;
}

export type PaymentLookup =
  | { status: 'succeeded'; providerRef: string; amount: number; currency: string; paymentMethodRef?: string }
  | { status: 'failed'; providerRef: string | null; message: string }
  | { status: 'pending' }
  | { status: 'unknown' };

export interface StartPayment {
  donationId: string;
  amount: number;
  currency: Currency;
  /** The card number as entered (sandbox only; real providers collect cards on their own page). */
  card?: string;
  /** Keep the payment method for later months (monthly donations). */
  saveForLater: boolean;
  /** The payer's email, for the provider's own receipt and customer record. */
  email: string;
  campaignTitle: string;
  /** Where the provider's page sends the payer back to (the receipt page), and on cancel. */
  successUrl: string;
  cancelUrl: string;
  /** Passed to the provider so a retried request never starts a second payment. */
  idempotencyKey: string;
}

export type StartResult =
  /** The payer finishes on the provider's page; an event follows. */
  | { kind: 'redirect'; providerRef: string; checkoutUrl: string }
  /** The provider took the payment request; an event follows (the sandbox has already delivered it). */
  | { kind: 'submitted'; providerRef: string };

export interface ChargeSaved {
  donationId: string;
  paymentMethodRef: string;
  amount: number;
  currency: Currency;
  email: string;
  idempotencyKey: string;
}

export type ChargeResult =
  | { kind: 'submitted'; providerRef: string }
  /** Refused at once (declined, no funds): no event follows. */
  | { kind: 'failed'; providerRef: string | null; message: string };

export interface RefundPayment {
  donationId: string;
  providerRef: string;
  amount: number;
  currency: Currency;
  idempotencyKey: string;
}

/**
 * What a provider tells the app about a payment, after checking the event's signature. Every
 * event that moves money names its amount and currency (minor units), which the app checks
 * against the donation before it books anything: an event that does not match books nothing and
 * is kept for admins (payment_events.problem).
 *
 * A payment is found by `donationId` when the provider carries it (the sandbox, a checkout's
 * metadata), else by its `providerRef` (a refund or chargeback names only the payment).
 */
export type PaymentEvent =
  | {
      /** The provider's own event id: an event seen twice changes nothing the second time. */
      eventId: string;
      type: 'payment.succeeded';
      donationId: string;
      providerRef: string;
      /** What was paid, in minor units, and in which currency (checked against the donation). */
      amount: number;
      currency: string;
      /** The saved payment method, when the payment saved one (monthly donations). */
      paymentMethodRef?: string;
    }
  | {
      eventId: string;
      type: 'payment.failed';
      donationId: string;
      providerRef: string | null;
      /** What the payer is told ("Your card was declined."). */
      message: string;
    }
  | {
      /**
       * Money of a payment went back to the payer, through the app or the provider's dashboard:
       * `refundedTotal` is all that has been refunded of it so far (so the same refund reported
       * twice, or the app's own refund reported back, books nothing more).
       */
      eventId: string;
      type: 'payment.refunded';
      donationId: string | null;
      providerRef: string;
      refundedTotal: number;
      currency: string;
    }
  | {
      /** The payer's bank disputes the payment: the provider holds `amount` until it ends. */
      eventId: string;
      type: 'chargeback.opened';
      donationId: string | null;
      providerRef: string;
      chargebackRef: string;
      amount: number;
      currency: string;
      reason: string;
    }
  | {
      /**
       * The dispute ended: `won` releases the money to the campaign, `lost` returns it to the
       * payer, and the provider takes its dispute `fee` (minor units, same currency; 0 when none).
       */
      eventId: string;
      type: 'chargeback.closed';
      donationId: string | null;
      providerRef: string;
      chargebackRef: string;
      outcome: 'won' | 'lost';
      amount: number;
      currency: string;
      fee: number;
    };

/** The event types the app acts on (PaymentEvent['type']). */
export type PaymentEventType = PaymentEvent['type'];

/** A webhook whose signature is good but whose body is not an event the provider sends (a 400, never retried into a 500). */
export class WebhookPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

export class WebhookSignatureError extends Error {
  constructor(message = 'Invalid webhook signature') {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** A provider refused a request (not a card decline): the message is safe to show. */
export class PaymentProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

/** How the sandbox (and tests) hand a signed webhook to the app: the same function the webhook route calls. */
export type WebhookSink = (provider: string, rawBody: Buffer, headers: Record<string, string>) => Promise<void>;
