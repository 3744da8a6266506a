import type { Config } from '../config';
import { createSandboxProvider, sandboxKey } from './sandbox';
import type { PaymentProvider, WebhookSink } from './port';

/**
 * The configured payment provider: Stripe when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are
 * set, else the built-in sandbox (test mode, no network). `deliver` is where the sandbox hands its
 * signed webhook events: the same function the webhook route calls.
 */
export async function createPaymentProvider(config: Config, deliver: WebhookSink): Promise<PaymentProvider> {
  if (config.stripe) {
    const { createStripeProvider } = await import('./stripe');
    return createStripeProvider({ secretKey: config.stripe.secretKey, webhookSecret: config.stripe.webhookSecret });
  }
  return createSandboxProvider({ key: sandboxKey(config.dataDir), deliver });
}
