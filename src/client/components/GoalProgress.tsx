import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';
import { goalText } from './itemText';

/** What the progress toward a goal needs (a campaign fits). */
export interface GoalItem {
  goalAmount: number;
  targetType: 'amount' | 'supporters';
  totalRaised: number;
  supporters: number;
  currency: Currency;
}

/**
 * The progress toward the goal: money raised of goalAmount, or supporters of goalAmount when the
 * target is supporters. Null without a goal. `percent` may pass 100; the bar stops there.
 */
export function goalProgress(item: GoalItem): { percent: number; text: string } | null {
  if (!(item.goalAmount > 0)) return null;
  const bySupporters = item.targetType === 'supporters';
  const current = bySupporters ? item.supporters : item.totalRaised;
  const percent = Math.floor((current / item.goalAmount) * 100);
  const reached = bySupporters ? String(item.supporters) : formatMoney(item.totalRaised, item.currency);
  return { percent, text: `${reached} of ${goalText(item)} (${percent}%)` };
}

interface GoalProgressProps {
  item: GoalItem;
  /** The bar's accessible name. */
  label?: string;
  /** The list's thin bar: no visible text (the value is in aria-valuetext and the tooltip). */
  thin?: boolean;
}

/**
 * A progress bar toward the goal (role=progressbar with aria-valuenow and the value as text),
 * with the value written under it unless `thin`. Nothing without a goal.
 */
export function GoalProgress({ item, label = 'Progress toward the goal', thin = false }: GoalProgressProps) {
  const p = goalProgress(item);
  if (!p) return null;
  const now = Math.min(100, Math.max(0, p.percent));
  const bar = (
    <div
      className={thin ? 'meter meter-thin' : 'meter'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={now}
      aria-valuetext={p.text}
      title={thin ? p.text : undefined}
    >
      <div className="meter-bar" style={{ width: `${now}%` }} />
    </div>
  );
  if (thin) return bar;
  return (
    <div className="goal-progress">
      {bar}
      <p className="goal-progress-text">{p.text}</p>
    </div>
  );
}
