import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';

/** The goal as a person reads it: an amount (2 decimals, currency symbol), or a number of people. */
export function goalText(item: { goalAmount: number; currency: Currency; targetType: 'amount' | 'supporters' }): string {
  if (item.targetType === 'supporters') return `${item.goalAmount} ${item.goalAmount === 1 ? 'supporter' : 'supporters'}`;
  return formatMoney(item.goalAmount, item.currency);
}

/** A category as shown: 'art' reads 'Art'. */
export function categoryLabel(type: string): string {
  return type.charAt(0).toUpperCase() + type.slice(1);
}

/** An unreleased item's state as its owner's badge reads it. */
export function visibilityLabel(v: 'draft' | 'scheduled'): string {
  return v === 'draft' ? 'Draft' : 'Scheduled';
}
