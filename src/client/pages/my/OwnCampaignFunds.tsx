import { useId } from 'react';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { FundsPanel } from '../campaigns/FundsPanel';

/**
 * A row's "Funds" disclosure on /myCampaigns: a button (aria-expanded, aria-controls) and, while
 * open, the campaign's Funds panel (balance, Request payout, payout history) under the row. The
 * panel is only mounted while open, so no balance is asked for until the owner opens it. The
 * list keeps one open at a time (the panel's headings carry fixed ids).
 */
export function OwnCampaignFunds({
  campaign,
  titleId,
  open,
  onToggle,
}: {
  campaign: Pick<CampaignDto, '_id' | 'ownerId'>;
  /** The row's title, as the button's description ("Funds" of which campaign). */
  titleId: string;
  open: boolean;
  onToggle: () => void;
}) {
  const panelId = useId();
  return (
    <>
      <button
        type="button"
        className="button button-secondary button-small own-funds-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        aria-describedby={titleId}
        onClick={onToggle}
      >
        <span className="own-funds-chevron" aria-hidden="true" />
        Funds
      </button>
      <div id={panelId} className="own-funds" hidden={!open}>
        {open && <FundsPanel campaign={campaign} nested />}
      </div>
    </>
  );
}
