import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PaymentProviderError, WebhookSignatureError, type PaymentProvider, type StartPayment } from './port';
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
      expect(result).toEqual({ eventId: 'evt_1Completed', type: 'payment.succeeded', donationId: 'don_1', providerRef: 'pi_3Paid' });
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
      });
      const payload = event('checkout.session.completed', session, 'evt_1Monthly');
      const result = await provider().parseWebhook(Buffer.from(payload), signed(payload));

      expect(result).toEqual({
        eventId: 'evt_1Monthly',
        type: 'payment.succeeded',
        donationId: 'don_3',
        providerRef: 'pi_3Monthly',
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
      });
    });

    it('turns the outcome of an off-session charge into an event', async () => {
      const p = provider();
      const ok = event('payment_intent.succeeded', paymentIntent(), 'evt_1PiOk');
      expect(await p.parseWebhook(Buffer.from(ok), signed(ok))).toEqual({
        eventId: 'evt_1PiOk',
        type: 'payment.succeeded',
        donationId: 'don_2',
        providerRef: 'pi_3Off1',
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
      ];
      for (const payload of ignored) {
        expect(await p.parseWebhook(Buffer.from(payload), signed(payload))).toBeNull();
      }
      expect(recorded).toHaveLength(0);
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
});
