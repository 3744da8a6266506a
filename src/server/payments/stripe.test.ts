import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PaymentProviderError, WebhookPayloadError, WebhookSignatureError, type PaymentProvider, type StartPayment } from './port';
import { createStripeProvider } from './stripe';

/**
 * Stripe cannot be reached from the tests: the adapter talks to a local HTTP server standing in
 * for api.stripe.com, which records what the SDK sent and answers with Stripe-shaped JSON, and
 * webhooks are signed with the SDK's own test-header helper.
 */

const SECRET_KEY = 'sk_test_51KindlingTestKey';
const WEBHOOK_SECRET = 'whsec_kindling_test_secret';
const API_VERSION = Stripe.API_VERSION;

interface Recorded {
  method: string;
  path: string;
  /** The form-encoded body, decoded (Stripe's bracket keys as they are on the wire). */
  form: Record<string, string>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

type Answer = { status: number; body: unknown };
type Route = (req: Recorded) => Answer;

let server: Server;
let port: number;
let recorded: Recorded[] = [];
let routes: Record<string, Route> = {};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const body = await readBody(req);
    const rec: Recorded = {
      method: req.method ?? '',
      path: url.pathname,
      form: Object.fromEntries(new URLSearchParams(body || url.search)),
      idempotencyKey: header(req, 'idempotency-key'),
      authorization: header(req, 'authorization'),
    };
    recorded.push(rec);
    const route = routes[`${rec.method} ${rec.path}`];
    const answer: Answer = route
      ? route(rec)
      : { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${rec.method}: ${rec.path})` } } };
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'request-id': `req_${recorded.length}`,
      'stripe-version': API_VERSION,
      ...(rec.idempotencyKey ? { 'idempotency-key': rec.idempotencyKey } : {}),
    });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  routes = {};
});

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function provider(secretKey = SECRET_KEY): PaymentProvider {
  return createStripeProvider({
    secretKey,
    webhookSecret: WEBHOOK_SECRET,
    apiBase: { host: '127.0.0.1', port, protocol: 'http' },
  });
}

// ---- Stripe-shaped objects --------------------------------------------------------------------

function checkoutSession(o: Partial<Record<string, unknown>> = {}) {
  return {
    id: 'cs_test_a1B2c3D4',
    object: 'checkout.session',
    amount_subtotal: 2500,
    amount_total: 2500,
    cancel_url: 'https://kindling.example/campaigns/c1',
    client_reference_id: 'don_1',
    created: 1_760_000_000,
    currency: 'usd',
    customer: null,
    customer_creation: 'if_required',
    customer_details: null,
    customer_email: 'ada@example.com',
    expires_at: 1_760_086_400,
    livemode: false,
    metadata: { donationId: 'don_1' },
    mode: 'payment',
    payment_intent: null,
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    status: 'open',
    submit_type: 'donate',
    success_url: 'https://kindling.example/donations/don_1/receipt',
    ui_mode: 'hosted',
    url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4#fidkdWxOYHwnPyd1blpxYHZxWjA0',
    ...o,
  };
}

function paymentIntent(o: Partial<Record<string, unknown>> = {}) {
  return {
    id: 'pi_3Off1',
    object: 'payment_intent',
    amount: 1000,
    amount_received: 1000,
    capture_method: 'automatic_async',
    client_secret: 'pi_3Off1_secret_x',
    confirmation_method: 'automatic',
    created: 1_760_000_000,
    currency: 'usd',
    customer: 'cus_Saved1',
    last_payment_error: null,
    latest_charge: 'ch_3Off1',
    livemode: false,
    metadata: { donationId: 'don_2', flow: 'off_session' },
    payment_method: 'pm_1Card',
    payment_method_types: ['card'],
    setup_future_usage: null,
    status: 'succeeded',
    ...o,
  };
}

function charge(o: Partial<Record<string, unknown>> = {}) {
  return {
    id: 'ch_3Paid',
    object: 'charge',
    amount: 2500,
    amount_captured: 2500,
    amount_refunded: 0,
    captured: true,
    created: 1_760_000_050,
    currency: 'usd',
    disputed: false,
    livemode: false,
    metadata: { donationId: 'don_1', flow: 'checkout' },
    paid: true,
    payment_intent: 'pi_3Paid',
    payment_method: 'pm_1Card',
    refunded: false,
    status: 'succeeded',
    ...o,
  };
}

function balanceTransaction(o: Partial<Record<string, unknown>> = {}) {
  return {
    id: 'txn_1DisputeWithdrawal',
    object: 'balance_transaction',
    amount: -2500,
    currency: 'usd',
    description: 'Chargeback withdrawal for ch_3Paid',
    fee: 1500,
    fee_details: [{ amount: 1500, currency: 'usd', description: 'Dispute fee', type: 'stripe_fee' }],
    net: -4000,
    reporting_category: 'dispute',
    status: 'available',
    type: 'adjustment',
    ...o,
  };
}

function dispute(o: Partial<Record<string, unknown>> = {}) {
  return {
    id: 'dp_1Disputed',
    object: 'dispute',
    amount: 2500,
    balance_transactions: [],
    charge: 'ch_3Paid',
    created: 1_760_100_000,
    currency: 'usd',
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: 'pi_3Paid',
    reason: 'fraudulent',
    status: 'needs_response',
    ...o,
  };
}

function list(url: string, data: unknown[]) {
  return { status: 200, body: { object: 'list', data, has_more: false, url } };
}

function without<T extends object>(o: T, ...keys: (keyof T)[]): Partial<T> {
  const copy: Partial<T> = { ...o };
  for (const k of keys) delete copy[k];
  return copy;
}

const noSuch = (what: string, id: string) => ({
  status: 404,
  body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such ${what}: '${id}'` } },
});

function cardError(code: string, message: string, declineCode?: string) {
  return {
    status: 402,
    body: {
      error: {
        type: 'card_error',
        code,
        ...(declineCode ? { decline_code: declineCode } : {}),
        message,
        charge: 'ch_3Declined',
        doc_url: `https://stripe.com/docs/error-codes/${code}`,
        request_log_url: 'https://dashboard.stripe.com/test/logs/req_x',
        payment_intent: paymentIntent({
          id: 'pi_3Declined',
          status: 'requires_payment_method',
          amount_received: 0,
          last_payment_error: { type: 'card_error', code, decline_code: declineCode, message },
        }),
      },
    },
  };
}

function event(type: string, object: unknown, id = `evt_${type.replace(/\W/g, '_')}`) {
  return JSON.stringify({
    id,
    object: 'event',
    api_version: API_VERSION,
    created: 1_760_000_100,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
}

function signed(payload: string, secret = WEBHOOK_SECRET): Record<string, string> {
  return {
    'content-type': 'application/json',
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }),
  };
}

const start: StartPayment = {
  donationId: 'don_1',
  amount: 2500,
  currency: 'USD',
  saveForLater: false,
  email: 'ada@example.com',
  campaignTitle: 'A Kiln for the Village School',
  successUrl: 'https://kindling.example/donations/don_1/receipt',
  cancelUrl: 'https://kindling.example/campaigns/c1',
  idempotencyKey: 'donation-start-don_1',
};

// ---- tests ------------------------------------------------------------------------------------

describe('stripe provider', () => {
  it('names itself, collects cards on Stripe, and is in test mode only with a test key', () => {
    const p = provider();
    expect(p.name).toBe('stripe');
    expect(p.collectsCardInApp).toBe(false);
    expect(p.testMode).toBe(true);
    expect(provider('rk_test_51KindlingRestricted').testMode).toBe(true);
    expect(provider('sk_live_51KindlingLiveKey').testMode).toBe(false);
    expect(recorded).toHaveLength(0);
  });

  describe('startPayment', () => {
    it('creates one Checkout Session for a one-off donation and redirects to it', async () => {
      routes['POST /v1/checkout/sessions'] = () => ({ status: 200, body: checkoutSession() });
      const result = await provider().startPayment(start);

      expect(result).toEqual({
        kind: 'redirect',
        providerRef: 'cs_test_a1B2c3D4',
        checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4#fidkdWxOYHwnPyd1blpxYHZxWjA0',
      });
      expect(recorded).toHaveLength(1);
      const [req] = recorded;
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/v1/checkout/sessions');
      expect(req.idempotencyKey).toBe('donation-start-don_1');
      expect(req.authorization).toBe(`Bearer ${SECRET_KEY}`);
      expect(req.form).toEqual({
        mode: 'payment',
        submit_type: 'donate',
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'usd',
        'line_items[0][price_data][unit_amount]': '2500',
        'line_items[0][price_data][product_data][name]': 'Donation to A Kiln for the Village School',
        customer_email: 'ada@example.com',
        client_reference_id: 'don_1',
        'metadata[donationId]': 'don_1',
        'payment_intent_data[metadata][donationId]': 'don_1',
        'payment_intent_data[metadata][flow]': 'checkout',
        success_url: 'https://kindling.example/donations/don_1/receipt',
        cancel_url: 'https://kindling.example/campaigns/c1',
      });
    });

    it('asks Checkout to create a customer and keep the card when the donation is monthly', async () => {
      routes['POST /v1/checkout/sessions'] = () => ({
        status: 200,
        body: checkoutSession({
          id: 'cs_test_Monthly',
          currency: 'eur',
          customer_creation: 'always',
          url: 'https://checkout.stripe.com/c/pay/cs_test_Monthly',
        }),
      });
      const result = await provider().startPayment({ ...start, saveForLater: true, currency: 'EUR', amount: 1000, idempotencyKey: 'k-monthly' });

      expect(result).toEqual({ kind: 'redirect', providerRef: 'cs_test_Monthly', checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_Monthly' });
      expect(recorded).toHaveLength(1);
      const { form, idempotencyKey } = recorded[0];
      expect(idempotencyKey).toBe('k-monthly');
      expect(form).toMatchObject({
        mode: 'payment',
        customer_creation: 'always',
        'payment_intent_data[setup_future_usage]': 'off_session',
        'payment_intent_data[metadata][donationId]': 'don_1',
        'line_items[0][price_data][currency]': 'eur',
        'line_items[0][price_data][unit_amount]': '1000',
      });
    });

    it('answers with the payment intent when the session already has one', async () => {
      routes['POST /v1/checkout/sessions'] = () => ({ status: 200, body: checkoutSession({ payment_intent: 'pi_3Early' }) });
      const result = await provider().startPayment(start);
      expect(result).toMatchObject({ kind: 'redirect', providerRef: 'pi_3Early' });
      expect(recorded).toHaveLength(1);
    });

    it('turns a refusal into PaymentProviderError without Stripe’s wording', async () => {
      routes['POST /v1/checkout/sessions'] = () => ({
        status: 400,
        body: { error: { type: 'invalid_request_error', code: 'url_invalid', param: 'success_url', message: 'Not a valid URL' } },
      });
      const err = await provider()
        .startPayment(start)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaymentProviderError);
      expect((err as Error).message).not.toMatch(/URL/);
      expect(recorded).toHaveLength(1);
    });
  });

  describe('chargeSaved', () => {
    const charge = {
      donationId: 'don_2',
      paymentMethodRef: 'cus_Saved1:pm_1Card',
      amount: 1000,
      currency: 'USD' as const,
      email: 'ada@example.com',
      idempotencyKey: 'donation-charge-don_2',
    };

    it('confirms an off-session PaymentIntent on the saved customer and card', async () => {
      routes['POST /v1/payment_intents'] = () => ({ status: 200, body: paymentIntent() });
      const result = await provider().chargeSaved(charge);

      expect(result).toEqual({ kind: 'submitted', providerRef: 'pi_3Off1' });
      expect(recorded).toHaveLength(1);
      const [req] = recorded;
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/v1/payment_intents');
      expect(req.idempotencyKey).toBe('donation-charge-don_2');
      expect(req.authorization).toBe(`Bearer ${SECRET_KEY}`);
      expect(req.form).toEqual({
        amount: '1000',
        currency: 'usd',
        customer: 'cus_Saved1',
        payment_method: 'pm_1Card',
        confirm: 'true',
        off_session: 'true',
        'metadata[donationId]': 'don_2',
        'metadata[flow]': 'off_session',
      });
    });

    it('reports a declined card as failed with the decline message, without retrying', async () => {
      routes['POST /v1/payment_intents'] = () => cardError('card_declined', 'Your card was declined.', 'generic_decline');
      const result = await provider().chargeSaved(charge);
      expect(result).toEqual({ kind: 'failed', providerRef: 'pi_3Declined', message: 'Your card was declined.' });
      expect(recorded).toHaveLength(1);
    });

    it('reports a card that needs the payer present as failed', async () => {
      const message = 'Your card was declined. This transaction requires authentication.';
      routes['POST /v1/payment_intents'] = () => cardError('authentication_required', message, 'authentication_required');
      const result = await provider().chargeSaved(charge);
      expect(result).toEqual({ kind: 'failed', providerRef: 'pi_3Declined', message });
      expect(recorded).toHaveLength(1);
    });

    it('reports a detached card as failed', async () => {
      routes['POST /v1/payment_intents'] = () => ({
        status: 400,
        body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: "No such PaymentMethod: 'pm_1Card'" } },
      });
      const result = await provider().chargeSaved(charge);
      expect(result).toMatchObject({ kind: 'failed', providerRef: null });
      expect((result as { message: string }).message).not.toMatch(/pm_/);
      expect(recorded).toHaveLength(1);
    });

    it('refuses a reference it did not make without calling Stripe', async () => {
      const result = await provider().chargeSaved({ ...charge, paymentMethodRef: 'sbx_pm_4242424242424242' });
      expect(result).toMatchObject({ kind: 'failed', providerRef: null });
      expect(recorded).toHaveLength(0);
    });
  });

  describe('refund', () => {
    const refund = { donationId: 'don_1', providerRef: 'pi_3Paid', amount: 2500, currency: 'USD' as const, idempotencyKey: 'donation-refund-don_1' };

    it('refunds the payment intent in full', async () => {
      routes['POST /v1/refunds'] = () => ({
        status: 200,
        body: {
          id: 're_3Paid',
          object: 'refund',
          amount: 2500,
          currency: 'usd',
          payment_intent: 'pi_3Paid',
          charge: 'ch_3Paid',
          status: 'succeeded',
          metadata: { donationId: 'don_1' },
        },
      });
      expect(await provider().refund(refund)).toEqual({ refundRef: 're_3Paid' });

      expect(recorded).toHaveLength(1);
      const [req] = recorded;
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/v1/refunds');
      expect(req.idempotencyKey).toBe('donation-refund-don_1');
      expect(req.authorization).toBe(`Bearer ${SECRET_KEY}`);
      expect(req.form).toEqual({ payment_intent: 'pi_3Paid', 'metadata[donationId]': 'don_1' });
    });

    it('throws PaymentProviderError with a safe message when Stripe refuses', async () => {
      routes['POST /v1/refunds'] = () => ({
        status: 400,
        body: { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge ch_3Paid has already been refunded.' } },
      });
      const err = await provider()
        .refund(refund)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaymentProviderError);
      expect((err as Error).message).toBe('This payment has already been refunded.');
      expect(recorded).toHaveLength(1);
    });

    it('throws PaymentProviderError when the key is refused', async () => {
      routes['POST /v1/refunds'] = () => ({
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****Key' } },
      });
      const err = await provider()
        .refund(refund)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaymentProviderError);
      expect((err as Error).message).not.toMatch(/sk_/);
      expect(recorded).toHaveLength(1);
    });

    it('finds the payment intent of a checkout session reference first', async () => {
      routes['GET /v1/checkout/sessions/cs_test_a1B2c3D4'] = () => ({
        status: 200,
        body: checkoutSession({ payment_intent: 'pi_3Paid', payment_status: 'paid', status: 'complete' }),
      });
      routes['POST /v1/refunds'] = () => ({ status: 200, body: { id: 're_3Paid', object: 'refund', payment_intent: 'pi_3Paid', status: 'succeeded' } });
      expect(await provider().refund({ ...refund, providerRef: 'cs_test_a1B2c3D4' })).toEqual({ refundRef: 're_3Paid' });
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/checkout/sessions/cs_test_a1B2c3D4', 'POST /v1/refunds']);
      expect(recorded[1].form.payment_intent).toBe('pi_3Paid');
      expect(recorded[1].idempotencyKey).toBe('donation-refund-don_1');
    });
  });

  describe('parseWebhook', () => {
    const completedOneOff = checkoutSession({ payment_intent: 'pi_3Paid', payment_status: 'paid', status: 'complete' });

    it('turns a paid checkout into payment.succeeded carrying the payment intent', async () => {
      const payload = event('checkout.session.completed', completedOneOff, 'evt_1Completed');
      const result = await provider().parseWebhook(Buffer.from(payload), signed(payload));
      expect(result).toEqual({
        eventId: 'evt_1Completed',
        type: 'payment.succeeded',
        donationId: 'don_1',
        providerRef: 'pi_3Paid',
        amount: 2500,
        currency: 'USD',
      });
      expect(recorded).toHaveLength(0);
    });

    it('takes the donation from client_reference_id when the metadata is missing', async () => {
      const payload = event('checkout.session.completed', { ...completedOneOff, metadata: {} }, 'evt_1NoMeta');
      const result = await provider().parseWebhook(Buffer.from(payload), signed(payload));
      expect(result).toMatchObject({ type: 'payment.succeeded', donationId: 'don_1' });
    });

    it('asks Stripe for the card a monthly checkout saved', async () => {
      routes['GET /v1/payment_intents/pi_3Monthly'] = () => ({
        status: 200,
        body: paymentIntent({
          id: 'pi_3Monthly',
          customer: 'cus_New1',
          payment_method: 'pm_1Saved',
          setup_future_usage: 'off_session',
          metadata: { donationId: 'don_3', flow: 'checkout' },
        }),
      });
      const session = checkoutSession({
        id: 'cs_test_Monthly',
        client_reference_id: 'don_3',
        metadata: { donationId: 'don_3' },
        customer: 'cus_New1',
        customer_creation: 'always',
        payment_intent: 'pi_3Monthly',
        payment_status: 'paid',
        status: 'complete',
        amount_subtotal: 1000,
        amount_total: 1000,
        currency: 'eur',
      });
      const payload = event('checkout.session.completed', session, 'evt_1Monthly');
      const result = await provider().parseWebhook(Buffer.from(payload), signed(payload));

      expect(result).toEqual({
        eventId: 'evt_1Monthly',
        type: 'payment.succeeded',
        donationId: 'don_3',
        providerRef: 'pi_3Monthly',
        amount: 1000,
        currency: 'EUR',
        paymentMethodRef: 'cus_New1:pm_1Saved',
      });
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({ method: 'GET', path: '/v1/payment_intents/pi_3Monthly', authorization: `Bearer ${SECRET_KEY}` });
    });

    it('fails the webhook, to have it delivered again, when the saved card cannot be looked up', async () => {
      routes['GET /v1/payment_intents/pi_3Gone'] = () => ({
        status: 404,
        body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'intent', message: "No such payment_intent: 'pi_3Gone'" } },
      });
      const session = checkoutSession({
        customer: 'cus_New1',
        customer_creation: 'always',
        payment_intent: 'pi_3Gone',
        payment_status: 'paid',
        status: 'complete',
      });
      const payload = event('checkout.session.completed', session, 'evt_1Gone');
      await expect(provider().parseWebhook(Buffer.from(payload), signed(payload))).rejects.toBeInstanceOf(PaymentProviderError);
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/payment_intents/pi_3Gone']);
    });

    it('the saved reference it builds is one chargeSaved takes', async () => {
      routes['POST /v1/payment_intents'] = () => ({ status: 200, body: paymentIntent({ customer: 'cus_New1', payment_method: 'pm_1Saved' }) });
      await provider().chargeSaved({
        donationId: 'don_4',
        paymentMethodRef: 'cus_New1:pm_1Saved',
        amount: 1000,
        currency: 'USD',
        email: 'a@b.c',
        idempotencyKey: 'k4',
      });
      expect(recorded).toHaveLength(1);
      expect(recorded[0].form).toMatchObject({ customer: 'cus_New1', payment_method: 'pm_1Saved' });
    });

    it('turns a failed or expired checkout into payment.failed', async () => {
      const p = provider();
      const failed = event('checkout.session.async_payment_failed', { ...completedOneOff, payment_status: 'unpaid' }, 'evt_1AsyncFailed');
      expect(await p.parseWebhook(Buffer.from(failed), signed(failed))).toEqual({
        eventId: 'evt_1AsyncFailed',
        type: 'payment.failed',
        donationId: 'don_1',
        providerRef: 'pi_3Paid',
        message: expect.any(String),
      });
      const expired = event('checkout.session.expired', checkoutSession({ status: 'expired' }), 'evt_1Expired');
      expect(await p.parseWebhook(Buffer.from(expired), signed(expired))).toEqual({
        eventId: 'evt_1Expired',
        type: 'payment.failed',
        donationId: 'don_1',
        providerRef: null,
        message: expect.stringMatching(/expired/),
      });
      expect(recorded).toHaveLength(0);
    });

    it('turns a delayed checkout payment that went through into payment.succeeded', async () => {
      const payload = event('checkout.session.async_payment_succeeded', completedOneOff, 'evt_1AsyncOk');
      expect(await provider().parseWebhook(Buffer.from(payload), signed(payload))).toEqual({
        eventId: 'evt_1AsyncOk',
        type: 'payment.succeeded',
        donationId: 'don_1',
        providerRef: 'pi_3Paid',
        amount: 2500,
        currency: 'USD',
      });
    });

    it('turns the outcome of an off-session charge into an event', async () => {
      const p = provider();
      const ok = event('payment_intent.succeeded', paymentIntent({ amount: 1500, amount_received: 1500, currency: 'gbp' }), 'evt_1PiOk');
      expect(await p.parseWebhook(Buffer.from(ok), signed(ok))).toEqual({
        eventId: 'evt_1PiOk',
        type: 'payment.succeeded',
        donationId: 'don_2',
        providerRef: 'pi_3Off1',
        amount: 1500,
        currency: 'GBP',
        paymentMethodRef: 'cus_Saved1:pm_1Card',
      });
      const declined = paymentIntent({
        status: 'requires_payment_method',
        amount_received: 0,
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
      });
      const bad = event('payment_intent.payment_failed', declined, 'evt_1PiFailed');
      expect(await p.parseWebhook(Buffer.from(bad), signed(bad))).toEqual({
        eventId: 'evt_1PiFailed',
        type: 'payment.failed',
        donationId: 'don_2',
        providerRef: 'pi_3Off1',
        message: 'Your card has insufficient funds.',
      });
      expect(recorded).toHaveLength(0);
    });

    it('answers null for events the app does not act on', async () => {
      const p = provider();
      const ignored = [
        event('customer.created', { id: 'cus_1', object: 'customer', email: 'ada@example.com', metadata: {} }),
        event('charge.succeeded', { id: 'ch_1', object: 'charge', amount: 2500, payment_intent: 'pi_3Paid', metadata: {} }),
        // a delayed payment method: the outcome comes with checkout.session.async_payment_*
        event('checkout.session.completed', { ...completedOneOff, payment_status: 'unpaid' }),
        // a checkout that is not one of ours
        event('checkout.session.completed', { ...completedOneOff, metadata: {}, client_reference_id: null }),
        // a checkout's own payment intent: the checkout.session events carry its outcome
        event('payment_intent.succeeded', paymentIntent({ metadata: { donationId: 'don_1', flow: 'checkout' } })),
        event('payment_intent.payment_failed', paymentIntent({ metadata: { donationId: 'don_1', flow: 'checkout' }, status: 'requires_payment_method' })),
        // a payment intent made elsewhere on the account
        event('payment_intent.succeeded', paymentIntent({ metadata: {} })),
        // a dispute's follow-ups: its hold starts with charge.dispute.created and ends with .closed
        event('charge.dispute.funds_withdrawn', dispute({ balance_transactions: [balanceTransaction()] })),
        event('charge.dispute.updated', dispute({ status: 'under_review' })),
        event('charge.dispute.funds_reinstated', dispute({ status: 'won' })),
        // a refund's own lifecycle: the charge's amount_refunded (charge.refunded) is what counts
        event('charge.refund.updated', {
          id: 're_1',
          object: 'refund',
          amount: 1000,
          charge: 'ch_3Paid',
          currency: 'usd',
          payment_intent: 'pi_3Paid',
          status: 'succeeded',
        }),
        // a charge made without a PaymentIntent, which the app never makes
        event('charge.refunded', charge({ payment_intent: null, metadata: {}, amount_refunded: 2500, refunded: true })),
        event('charge.dispute.created', dispute({ payment_intent: null })),
      ];
      for (const payload of ignored) {
        expect(await p.parseWebhook(Buffer.from(payload), signed(payload))).toBeNull();
      }
      expect(recorded).toHaveLength(0);
    });

    it('turns a refund, from the app or the dashboard, into payment.refunded with all refunded so far', async () => {
      const p = provider();
      const partial = event('charge.refunded', charge({ amount_refunded: 1000 }), 'evt_1Refunded');
      expect(await p.parseWebhook(Buffer.from(partial), signed(partial))).toEqual({
        eventId: 'evt_1Refunded',
        type: 'payment.refunded',
        donationId: 'don_1',
        providerRef: 'pi_3Paid',
        refundedTotal: 1000,
        currency: 'USD',
      });
      // the rest refunded later, on a charge that does not carry the donation: found by its payment
      const rest = event('charge.refunded', charge({ amount_refunded: 2500, refunded: true, metadata: {}, currency: 'eur' }), 'evt_1RefundedAll');
      expect(await p.parseWebhook(Buffer.from(rest), signed(rest))).toEqual({
        eventId: 'evt_1RefundedAll',
        type: 'payment.refunded',
        donationId: null,
        providerRef: 'pi_3Paid',
        refundedTotal: 2500,
        currency: 'EUR',
      });
      expect(recorded).toHaveLength(0);
    });

    it('turns an opened dispute into chargeback.opened naming the payment', async () => {
      const payload = event('charge.dispute.created', dispute({ amount: 2000, currency: 'gbp', reason: 'product_not_received' }), 'evt_1DisputeOpened');
      expect(await provider().parseWebhook(Buffer.from(payload), signed(payload))).toEqual({
        eventId: 'evt_1DisputeOpened',
        type: 'chargeback.opened',
        donationId: null,
        providerRef: 'pi_3Paid',
        chargebackRef: 'dp_1Disputed',
        amount: 2000,
        currency: 'GBP',
        reason: 'product_not_received',
      });
      // the donation, when the charge comes expanded with its metadata
      const expanded = event('charge.dispute.created', dispute({ charge: charge() }), 'evt_1DisputeExpanded');
      expect(await provider().parseWebhook(Buffer.from(expanded), signed(expanded))).toMatchObject({ type: 'chargeback.opened', donationId: 'don_1' });
      expect(recorded).toHaveLength(0);
    });

    it('turns a lost dispute into chargeback.closed lost with the dispute fee', async () => {
      const payload = event('charge.dispute.closed', dispute({ status: 'lost', balance_transactions: [balanceTransaction()] }), 'evt_1DisputeLost');
      expect(await provider().parseWebhook(Buffer.from(payload), signed(payload))).toEqual({
        eventId: 'evt_1DisputeLost',
        type: 'chargeback.closed',
        donationId: null,
        providerRef: 'pi_3Paid',
        chargebackRef: 'dp_1Disputed',
        outcome: 'lost',
        amount: 2500,
        currency: 'USD',
        fee: 1500,
      });
    });

    it('turns a won dispute or a closed inquiry into chargeback.closed won, with the fee net of what came back', async () => {
      const p = provider();
      const reinstated = balanceTransaction({ id: 'txn_1DisputeReinstated', amount: 2500, fee: -1500, net: 4000 });
      const won = event('charge.dispute.closed', dispute({ status: 'won', balance_transactions: [balanceTransaction(), reinstated] }), 'evt_1DisputeWon');
      expect(await p.parseWebhook(Buffer.from(won), signed(won))).toMatchObject({
        type: 'chargeback.closed',
        outcome: 'won',
        amount: 2500,
        currency: 'USD',
        fee: 0,
      });
      // won where the fee is not given back
      const kept = event(
        'charge.dispute.closed',
        dispute({ status: 'won', balance_transactions: [balanceTransaction(), { ...reinstated, fee: 0 }] }),
        'evt_1DisputeWonFee',
      );
      expect(await p.parseWebhook(Buffer.from(kept), signed(kept))).toMatchObject({ type: 'chargeback.closed', outcome: 'won', fee: 1500 });
      // an inquiry: no money was withdrawn
      const inquiry = event('charge.dispute.closed', dispute({ status: 'warning_closed' }), 'evt_1InquiryClosed');
      expect(await p.parseWebhook(Buffer.from(inquiry), signed(inquiry))).toEqual({
        eventId: 'evt_1InquiryClosed',
        type: 'chargeback.closed',
        donationId: null,
        providerRef: 'pi_3Paid',
        chargebackRef: 'dp_1Disputed',
        outcome: 'won',
        amount: 2500,
        currency: 'USD',
        fee: 0,
      });
    });

    it('counts no fee that Stripe took in another currency than the dispute’s', async () => {
      // a EUR donation on an account that settles in USD: the fee is in USD, the donation in EUR
      const settledInUsd = balanceTransaction({ amount: -2700, currency: 'usd', fee: 1500, net: -4200 });
      const payload = event('charge.dispute.closed', dispute({ status: 'lost', currency: 'eur', balance_transactions: [settledInUsd] }), 'evt_1DisputeLostEur');
      expect(await provider().parseWebhook(Buffer.from(payload), signed(payload))).toMatchObject({
        type: 'chargeback.closed',
        outcome: 'lost',
        amount: 2500,
        currency: 'EUR',
        fee: 0,
      });
    });

    it('moves money only on a dispute’s opening and closing, not on its follow-ups', async () => {
      const p = provider();
      const lifecycle = [
        event('charge.dispute.created', dispute(), 'evt_2Created'),
        event('charge.dispute.funds_withdrawn', dispute({ balance_transactions: [balanceTransaction()] }), 'evt_2Withdrawn'),
        event('charge.dispute.updated', dispute({ status: 'under_review', balance_transactions: [balanceTransaction()] }), 'evt_2Updated'),
        event('charge.dispute.funds_reinstated', dispute({ status: 'won', balance_transactions: [balanceTransaction()] }), 'evt_2Reinstated'),
        event('charge.dispute.closed', dispute({ status: 'won', balance_transactions: [balanceTransaction()] }), 'evt_2Closed'),
      ];
      const types: (string | null)[] = [];
      for (const payload of lifecycle) types.push((await p.parseWebhook(Buffer.from(payload), signed(payload)))?.type ?? null);
      expect(types).toEqual(['chargeback.opened', null, null, null, 'chargeback.closed']);
    });

    describe('refuses a signed event that lacks what the app reads (WebhookPayloadError, not a TypeError)', () => {
      const paidCheckout = checkoutSession({ payment_intent: 'pi_3Paid', payment_status: 'paid', status: 'complete' });
      const malformed: [name: string, type: string, object: unknown][] = [
        ['a paid checkout without metadata', 'checkout.session.completed', without(paidCheckout, 'metadata')],
        ['a paid checkout without amount_total', 'checkout.session.completed', without(paidCheckout, 'amount_total')],
        ['a delayed checkout payment without currency', 'checkout.session.async_payment_succeeded', without(paidCheckout, 'currency')],
        ['a failed delayed checkout payment without payment_status', 'checkout.session.async_payment_failed', without(paidCheckout, 'payment_status')],
        ['an expired checkout without client_reference_id', 'checkout.session.expired', without(checkoutSession({ status: 'expired' }), 'client_reference_id')],
        ['an off-session payment without amount_received', 'payment_intent.succeeded', without(paymentIntent(), 'amount_received')],
        ['an off-session failure without metadata', 'payment_intent.payment_failed', without(paymentIntent({ status: 'requires_payment_method' }), 'metadata')],
        ['a refunded charge without payment_intent', 'charge.refunded', without(charge({ amount_refunded: 2500, refunded: true }), 'payment_intent')],
        ['an opened dispute without amount', 'charge.dispute.created', without(dispute(), 'amount')],
        ['a closed dispute without balance_transactions', 'charge.dispute.closed', without(dispute({ status: 'lost' }), 'balance_transactions')],
        ['a closed dispute whose status is not a final one', 'charge.dispute.closed', dispute({ status: 'needs_response' })],
      ];
      it.each(malformed)('%s', async (_name, type, object) => {
        const payload = event(type, object, 'evt_1Malformed');
        const err = await provider()
          .parseWebhook(Buffer.from(payload), signed(payload))
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WebhookPayloadError);
        expect((err as Error).message).toContain(type);
        expect(recorded).toHaveLength(0);
      });

      it('an event without its object, and a JSON body that is no event', async () => {
        const p = provider();
        for (const payload of [
          JSON.stringify({ id: 'evt_1NoObject', object: 'event', type: 'charge.refunded', data: {} }),
          'null',
          '[]',
          JSON.stringify({ id: 'evt_1NoType', object: 'event', data: { object: charge() } }),
        ]) {
          await expect(p.parseWebhook(Buffer.from(payload), signed(payload))).rejects.toBeInstanceOf(WebhookPayloadError);
        }
      });

      it('a body that is not JSON', async () => {
        const payload = 'id=evt_1&type=charge.refunded';
        const err = await provider()
          .parseWebhook(Buffer.from(payload), signed(payload))
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WebhookPayloadError);
        expect((err as Error).message).toMatch(/not JSON/);
        // the signature is checked first: a wrong one on such a body is still a signature error
        await expect(provider().parseWebhook(Buffer.from(payload), signed(payload, 'whsec_someone_else'))).rejects.toBeInstanceOf(WebhookSignatureError);
      });
    });

    it('refuses a tampered body, a wrong secret and a missing signature', async () => {
      const p = provider();
      const payload = event('checkout.session.completed', completedOneOff, 'evt_1Tamper');
      const headers = signed(payload);

      const tampered = payload.replace('"amount_total":2500', '"amount_total":1');
      expect(tampered).not.toBe(payload);
      await expect(p.parseWebhook(Buffer.from(tampered), headers)).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(p.parseWebhook(Buffer.from(payload), signed(payload, 'whsec_someone_else'))).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(p.parseWebhook(Buffer.from(payload), { 'content-type': 'application/json' })).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(p.parseWebhook(Buffer.from(payload), { 'stripe-signature': '' })).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(p.parseWebhook(Buffer.from(payload), { 'stripe-signature': 'garbage' })).rejects.toBeInstanceOf(WebhookSignatureError);
      // the same request, untouched, is accepted
      await expect(p.parseWebhook(Buffer.from(payload), headers)).resolves.toMatchObject({ type: 'payment.succeeded' });
      expect(recorded).toHaveLength(0);
    });
  });

  describe('lookupPayment', () => {
    const createdAt = new Date(1_760_000_000_000);
    const byRef = (providerRef: string | null, donationId = 'don_1') => provider().lookupPayment({ donationId, providerRef, createdAt });
    const paidCheckoutIntent = paymentIntent({
      id: 'pi_3Paid',
      amount: 2500,
      amount_received: 2500,
      customer: null,
      metadata: { donationId: 'don_1', flow: 'checkout' },
    });

    it('answers succeeded for a PaymentIntent that went through, with what was paid', async () => {
      routes['GET /v1/payment_intents/pi_3Paid'] = () => ({ status: 200, body: { ...paidCheckoutIntent, currency: 'eur' } });
      expect(await byRef('pi_3Paid')).toEqual({ status: 'succeeded', providerRef: 'pi_3Paid', amount: 2500, currency: 'EUR' });
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/payment_intents/pi_3Paid']);
      expect(recorded[0].authorization).toBe(`Bearer ${SECRET_KEY}`);
    });

    it('answers succeeded with the saved card for a later month’s charge', async () => {
      routes['GET /v1/payment_intents/pi_3Off1'] = () => ({ status: 200, body: paymentIntent() });
      expect(await byRef('pi_3Off1', 'don_2')).toEqual({
        status: 'succeeded',
        providerRef: 'pi_3Off1',
        amount: 1000,
        currency: 'USD',
        paymentMethodRef: 'cus_Saved1:pm_1Card',
      });
    });

    it('answers failed for a canceled PaymentIntent and for a declined later month', async () => {
      routes['GET /v1/payment_intents/pi_3Canceled'] = () => ({
        status: 200,
        body: { ...paidCheckoutIntent, id: 'pi_3Canceled', status: 'canceled', amount_received: 0 },
      });
      routes['GET /v1/payment_intents/pi_3Declined'] = () => ({
        status: 200,
        body: paymentIntent({
          id: 'pi_3Declined',
          status: 'requires_payment_method',
          amount_received: 0,
          last_payment_error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' },
        }),
      });
      expect(await byRef('pi_3Canceled')).toEqual({ status: 'failed', providerRef: 'pi_3Canceled', message: expect.any(String) });
      expect(await byRef('pi_3Declined', 'don_2')).toEqual({ status: 'failed', providerRef: 'pi_3Declined', message: 'Your card was declined.' });
    });

    it('answers pending while the payer or the bank may still finish', async () => {
      const states = {
        pi_3Action: paymentIntent({ id: 'pi_3Action', status: 'requires_action', amount_received: 0 }),
        pi_3Processing: paymentIntent({ id: 'pi_3Processing', status: 'processing', amount_received: 0 }),
        // a checkout's PaymentIntent after a declined card: the payer may try another on the page
        pi_3Retry: { ...paidCheckoutIntent, id: 'pi_3Retry', status: 'requires_payment_method', amount_received: 0 },
      };
      for (const [id, body] of Object.entries(states)) routes[`GET /v1/payment_intents/${id}`] = () => ({ status: 200, body });
      for (const id of Object.keys(states)) expect(await byRef(id)).toEqual({ status: 'pending' });
    });

    it('answers unknown for a PaymentIntent or a checkout Stripe does not have', async () => {
      routes['GET /v1/payment_intents/pi_3Nowhere'] = () => noSuch('payment_intent', 'pi_3Nowhere');
      routes['GET /v1/checkout/sessions/cs_test_Nowhere'] = () => noSuch('checkout.session', 'cs_test_Nowhere');
      expect(await byRef('pi_3Nowhere')).toEqual({ status: 'unknown' });
      expect(await byRef('cs_test_Nowhere')).toEqual({ status: 'unknown' });
      // a reference this adapter never makes is not asked for
      expect(await byRef('sbx_pay_123')).toEqual({ status: 'unknown' });
      expect(recorded).toHaveLength(2);
    });

    it('follows a checkout reference: open is pending, expired is failed, paid is its PaymentIntent', async () => {
      routes['GET /v1/checkout/sessions/cs_test_Open'] = () => ({ status: 200, body: checkoutSession({ id: 'cs_test_Open' }) });
      routes['GET /v1/checkout/sessions/cs_test_Expired'] = () => ({ status: 200, body: checkoutSession({ id: 'cs_test_Expired', status: 'expired' }) });
      routes['GET /v1/checkout/sessions/cs_test_Paid'] = () => ({
        status: 200,
        body: checkoutSession({ id: 'cs_test_Paid', payment_intent: 'pi_3Paid', payment_status: 'paid', status: 'complete' }),
      });
      routes['GET /v1/payment_intents/pi_3Paid'] = () => ({ status: 200, body: paidCheckoutIntent });

      expect(await byRef('cs_test_Open')).toEqual({ status: 'pending' });
      expect(await byRef('cs_test_Expired')).toEqual({ status: 'failed', providerRef: null, message: expect.stringMatching(/expired/) });
      expect(await byRef('cs_test_Paid')).toEqual({ status: 'succeeded', providerRef: 'pi_3Paid', amount: 2500, currency: 'USD' });
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v1/checkout/sessions/cs_test_Open',
        'GET /v1/checkout/sessions/cs_test_Expired',
        'GET /v1/checkout/sessions/cs_test_Paid',
        'GET /v1/payment_intents/pi_3Paid',
      ]);
    });

    it('answers a complete but unpaid checkout by its payment: still processing, or failed', async () => {
      const unpaid = (id: string, pi: string) => checkoutSession({ id, payment_intent: pi, payment_status: 'unpaid', status: 'complete' });
      routes['GET /v1/checkout/sessions/cs_test_Debit'] = () => ({ status: 200, body: unpaid('cs_test_Debit', 'pi_3Debit') });
      routes['GET /v1/payment_intents/pi_3Debit'] = () => ({
        status: 200,
        body: { ...paidCheckoutIntent, id: 'pi_3Debit', status: 'processing', amount_received: 0 },
      });
      routes['GET /v1/checkout/sessions/cs_test_Bounced'] = () => ({ status: 200, body: unpaid('cs_test_Bounced', 'pi_3Bounced') });
      routes['GET /v1/payment_intents/pi_3Bounced'] = () => ({
        status: 200,
        body: { ...paidCheckoutIntent, id: 'pi_3Bounced', status: 'requires_payment_method', amount_received: 0 },
      });
      expect(await byRef('cs_test_Debit')).toEqual({ status: 'pending' });
      expect(await byRef('cs_test_Bounced')).toEqual({ status: 'failed', providerRef: 'pi_3Bounced', message: expect.any(String) });
    });

    it('without a reference, finds the donation’s checkout among those created around it', async () => {
      routes['GET /v1/checkout/sessions'] = () =>
        list('/v1/checkout/sessions', [
          checkoutSession({ id: 'cs_test_Other', client_reference_id: 'don_9', metadata: { donationId: 'don_9' }, status: 'complete', payment_status: 'paid' }),
          checkoutSession({ id: 'cs_test_Mine', payment_intent: 'pi_3Paid', payment_status: 'paid', status: 'complete' }),
        ]);
      routes['GET /v1/payment_intents/pi_3Paid'] = () => ({ status: 200, body: paidCheckoutIntent });

      expect(await byRef(null)).toEqual({ status: 'succeeded', providerRef: 'pi_3Paid', amount: 2500, currency: 'USD' });
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/checkout/sessions', 'GET /v1/payment_intents/pi_3Paid']);
      const at = createdAt.getTime() / 1000;
      const { form } = recorded[0];
      expect(Number(form['created[gte]'])).toBeLessThan(at);
      expect(Number(form['created[lte]'])).toBeGreaterThan(at);
    });

    it('without a reference, answers pending for the donation’s open checkout', async () => {
      routes['GET /v1/checkout/sessions'] = () => list('/v1/checkout/sessions', [checkoutSession({ metadata: null })]);
      expect(await byRef(null)).toEqual({ status: 'pending' });
      expect(recorded).toHaveLength(1);
    });

    it('without a reference or a checkout, finds a later month’s PaymentIntent, else answers unknown', async () => {
      routes['GET /v1/checkout/sessions'] = () => list('/v1/checkout/sessions', [checkoutSession()]);
      routes['GET /v1/payment_intents'] = () =>
        list('/v1/payment_intents', [paymentIntent({ id: 'pi_3Other', metadata: { donationId: 'don_8', flow: 'off_session' } }), paymentIntent()]);
      expect(await byRef(null, 'don_2')).toEqual({
        status: 'succeeded',
        providerRef: 'pi_3Off1',
        amount: 1000,
        currency: 'USD',
        paymentMethodRef: 'cus_Saved1:pm_1Card',
      });
      expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/checkout/sessions', 'GET /v1/payment_intents']);
      expect(recorded[1].form['created[gte]']).toBe(recorded[0].form['created[gte]']);

      recorded = [];
      expect(await byRef(null, 'don_7')).toEqual({ status: 'unknown' });
      expect(recorded).toHaveLength(2);
    });

    it('throws PaymentProviderError when Stripe cannot be asked', async () => {
      routes['GET /v1/payment_intents/pi_3Paid'] = () => ({
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****Key' } },
      });
      routes['GET /v1/checkout/sessions'] = () => ({
        status: 403,
        body: { error: { type: 'invalid_request_error', message: 'The provided key does not have access to checkout sessions' } },
      });
      for (const ref of ['pi_3Paid', null]) {
        const err = await byRef(ref).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(PaymentProviderError);
        expect((err as Error).message).not.toMatch(/sk_|key/);
      }
    });
  });
});
