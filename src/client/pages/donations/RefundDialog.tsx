import { useRef, useState } from 'react';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { ReceiptDto } from '../../../shared/schemas/donations';
import type { Currency } from '../../../shared/constants';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { errorMessage } from '../../lib/errors';
import { newIdempotencyKey } from '../../lib/idempotency';
import { trpc } from '../../trpc';

const REASON_MAX = 500;

interface RefundDialogProps {
  donation: { _id: string; amount: number; currency: Currency; donor?: string };
  onClose(): void;
  /** After the refund: the receipt as it now stands. */
  onRefunded(receipt: ReceiptDto): void;
  fallbackFocus?: () => HTMLElement | null | undefined;
}

/**
 * "Refund this donation?" with an optional reason. One idempotency key per dialog, so pressing
 * Refund again after a lost answer cannot refund twice. The campaign's figures and lists are
 * refreshed after it.
 */
export function RefundDialog({ donation, onClose, onRefunded, fallbackFocus }: RefundDialogProps) {
  const utils = trpc.useUtils();
  const [reason, setReason] = useState('');
  const key = useRef(newIdempotencyKey());
  const refund = trpc.donations.refund.useMutation({
    onSuccess(receipt) {
      utils.donations.receipt.setData({ id: receipt._id }, receipt);
      void utils.donations.receipt.invalidate({ id: receipt._id });
      void utils.donations.ofCampaign.invalidate({ campaignId: receipt.campaign._id });
      void utils.campaigns.invalidate();
      void utils.users.campaigns.invalidate();
      onRefunded(receipt);
    },
  });
  const tooLong = reason.trim().length > REASON_MAX;
  const amount = formatMoney(donation.amount, donation.currency);
  return (
    <ConfirmDialog
      title="Refund this donation?"
      message={`${amount}${donation.donor ? ` from ${donation.donor}` : ''} goes back to the donor. This cannot be undone.`}
      confirmLabel="Refund"
      busyLabel="Refunding…"
      cancelLabel="Keep it"
      busy={refund.isPending}
      error={tooLong ? M.refundReasonTooLong : refund.isError ? errorMessage(refund.error, M.requestFailed) : null}
      onConfirm={() => {
        if (tooLong) return;
        refund.mutate({ id: donation._id, reason: reason.trim() || undefined, idempotencyKey: key.current });
      }}
      onClose={onClose}
      fallbackFocus={fallbackFocus}
    >
      <div className="field">
        <div className="field-label">
          <label htmlFor={`refund-reason-${donation._id}`}>Reason</label>
          <span className="field-hint" id={`refund-reason-hint-${donation._id}`}>
            optional, sent to the donor
          </span>
        </div>
        <textarea
          id={`refund-reason-${donation._id}`}
          aria-describedby={`refund-reason-hint-${donation._id}`}
          aria-invalid={tooLong || undefined}
          rows={3}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
    </ConfirmDialog>
  );
}
