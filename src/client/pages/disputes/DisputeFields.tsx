import { type DISPUTE_STATUSES, DISPUTE_TYPES } from '../../../shared/constants';
import { Field, SelectField, TextAreaField } from '../../components/Field';
import type { FieldErrors } from '../../lib/forms';

export type DisputeType = (typeof DISPUTE_TYPES)[number];
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const TYPE_LABEL: Record<DisputeType, string> = { donation: 'Donation', payout: 'Payout', other: 'Other' };
export const STATUS_LABEL: Record<DisputeStatus, string> = {
  open: 'Open',
  under_review: 'Under review',
  resolved: 'Resolved',
  rejected: 'Rejected',
};

/** The type a dispute starts with: what it names, else 'other' (the spec's default). */
export function defaultType(p: { donationId?: string | null; payoutId?: string | null }): DisputeType {
  return p.donationId ? 'donation' : p.payoutId ? 'payout' : 'other';
}

export interface DisputeValues {
  type: DisputeType | '';
  reason: string;
  details: string;
}

const REASON_MAX = 200;
const DETAILS_MAX = 5000;

/**
 * Type, reason and details of a dispute (the modal and /disputes/new), built from the shared
 * fields (each labelled, each error tied to its field). Fields carry `name`s so a form can focus
 * the first one in error.
 */
export function DisputeFields({
  values,
  errors,
  onChange,
  allowBlankType = false,
}: {
  values: DisputeValues;
  errors: FieldErrors;
  onChange(next: DisputeValues): void;
  /** /disputes/new offers an empty choice (so 'Type is required' can be reached). */
  allowBlankType?: boolean;
}) {
  return (
    <>
      <SelectField
        label="Type"
        name="type"
        required
        value={values.type}
        error={errors.type}
        onChange={(e) => onChange({ ...values, type: e.target.value as DisputeType | '' })}
      >
        {allowBlankType && <option value="">Choose a type</option>}
        {DISPUTE_TYPES.map((t) => (
          <option key={t} value={t}>
            {TYPE_LABEL[t]}
          </option>
        ))}
      </SelectField>
      <Field
        label="Reason"
        hint="in a few words"
        name="reason"
        type="text"
        required
        maxLength={REASON_MAX}
        autoComplete="off"
        value={values.reason}
        error={errors.reason}
        onChange={(e) => onChange({ ...values, reason: e.target.value })}
      />
      <TextAreaField
        label="Details"
        hint="optional"
        name="details"
        rows={4}
        maxLength={DETAILS_MAX}
        value={values.details}
        error={errors.details}
        onChange={(e) => onChange({ ...values, details: e.target.value })}
      />
    </>
  );
}

/** Focuses the first field (in this order) that has an error, inside `root`. */
export function focusFirstError(root: HTMLElement | null | undefined, errors: FieldErrors, order: string[]): boolean {
  const name = order.find((n) => errors[n]);
  const el = name ? root?.querySelector<HTMLElement>(`[name="${name}"]`) : null;
  el?.focus();
  return !!el;
}
