import { M } from '../../../shared/messages';
import { badRequest, notFound } from '../../lib/errors';
import { WebhookPayloadError, WebhookSignatureError, type PaymentEvent } from '../../payments/port';
import type { DonationsContext } from './context';
import type { DonationSettlement } from './settle';

/** The payment provider's webhook: its signed events, checked and applied once (settle.ts). */
export function donationWebhooks(ctx: DonationsContext, settle: DonationSettlement) {
  const { log, provider } = ctx;
  const { metrics } = ctx.deps;
  const { applyEvent } = settle;

  return {
    /**
     * A webhook request from the provider named in its path: checked against the provider's
     * signature, then applied once. Unknown, repeated and already-final payments are
     * acknowledged without change.
     */
    async receiveWebhook(providerName: string, rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<{ received: true }> {
      if (providerName !== provider.name) throw notFound(M.paymentProviderUnknown);
      let event: PaymentEvent | null;
      try {
        event = await provider.parseWebhook(rawBody, headers);
      } catch (err) {
        // refused with one line each: a provider retries a 5xx for days, a 400 it does not
        if (err instanceof WebhookSignatureError) {
          metrics.paymentEvent('unknown', 'refused');
          log.warn({ provider: providerName, reason: err.message }, 'payment webhook refused: bad signature');
          throw badRequest(M.invalidWebhookSignature);
        }
        if (err instanceof WebhookPayloadError) {
          metrics.paymentEvent('unknown', 'refused');
          log.warn({ provider: providerName, reason: err.message }, 'payment webhook refused: malformed event');
          throw badRequest(M.invalidWebhookPayload);
        }
        metrics.paymentEvent('unknown', 'failed');
        throw err;
      }
      // an event the app does not act on is acknowledged all the same
      if (!event) {
        metrics.paymentEvent('other', 'ignored');
        return { received: true };
      }
      let changed: boolean;
      try {
        changed = await applyEvent(event);
      } catch (err) {
        metrics.paymentEvent(event.type, 'failed');
        throw err;
      }
      // a repeated event, or one about a payment unknown, already settled or not matching its
      // donation, is acknowledged and changes nothing
      metrics.paymentEvent(event.type, changed ? 'accepted' : 'ignored');
      return { received: true };
    },
  };
}
