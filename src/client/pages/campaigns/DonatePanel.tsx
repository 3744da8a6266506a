import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { CURRENCY_SYMBOL, formatMoney } from '../../../shared/money';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { PUBLIC_MESSAGE_MAX, PUBLIC_NAME_MAX } from '../../../shared/public-note';
import type { DonationDto, PaymentInfoDto } from '../../../shared/schemas/donations';
import { useSession } from '../../auth/useSession';
import { Field, FieldError, FieldLabel } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { ShareButton } from '../../components/ShareButton';
import { errorMessage, httpStatus } from '../../lib/errors';
import { lazySchema, validateLazy, type FieldErrors } from '../../lib/forms';
import { newIdempotencyKey } from '../../lib/idempotency';
import { trpc } from '../../trpc';
import { DONATE_PANEL_ID } from './MoneyBox';

const CHOOSE_AMOUNT = 'Choose an amount or enter one';
const PROCESSING = 'Processing…';
/** No answer came back: the donation may or may not have been made; the same key makes a retry safe. */
const CONNECTION_LOST = 'The connection was lost before an answer came. Press Donate again to retry: you will not be charged twice.';

/** Which field a server message is about (the rest are shown as an alert above the button). */
const FIELD_OF: Record<string, 'amount' | 'email' | 'card' | 'publicName' | 'publicMessage'> = {
  [M.donationAmountInvalid]: 'amount',
  [M.donationTooSmall]: 'amount',
  [M.donationTooLarge]: 'amount',
  [M.guestEmailRequired]: 'email',
  [M.emailRequired]: 'email',
  [M.emailInvalid]: 'email',
  [M.cardInvalid]: 'card',
  [M.cardRequired]: 'card',
  [M.cardNotTestCard]: 'card',
  [M.publicNameTooLong]: 'publicName',
  [M.publicMessageTooLong]: 'publicMessage',
};

const donateSchema = lazySchema(() => import('../../../shared/schemas/donations').then((m) => m.DonateFields));

/** '4242424242424242' reads '4242 4242 4242 4242'. */
const groupsOf4 = (card: string) => card.replace(/(\d{4})(?=\d)/g, '$1 ');

/** The Donate panel of a campaign that takes donations (actionMode donation or both). */
export function DonatePanel({ campaign }: { campaign: CampaignDto }) {
  const info = trpc.donations.info.useQuery(undefined, { staleTime: 10 * 60_000 });
  return (
    <section id={DONATE_PANEL_ID} className="card donate-panel" aria-labelledby="donate-heading">
      <h2 id="donate-heading" tabIndex={-1}>
        Donate
      </h2>
      {info.isPending ? (
        <Loading />
      ) : info.isError ? (
        <Notice kind="error">{errorMessage(info.error, M.requestFailed)}</Notice>
      ) : (
        <DonateForm campaign={campaign} info={info.data} />
      )}
    </section>
  );
}

type Done = { donation: DonationDto; monthly: boolean };

/** A signed-in person whose email is not verified yet gives nothing until it is: the panel says so, with "Send again". */
function VerifyToDonate({ email }: { email: string }) {
  const utils = trpc.useUtils();
  // verified meanwhile (in another tab, say): the answer says so, and the form comes back
  const resend = trpc.auth.resendVerification.useMutation({ onSuccess: () => void utils.auth.me.invalidate() });
  const message = resend.isSuccess ? resend.data.message || M.verificationSent : resend.isError ? errorMessage(resend.error, M.requestFailed) : null;
  return (
    <div className="form">
      <p className="notice notice-info">
        {M.verifyBeforeDonating} We sent a link to <strong>{email}</strong>.
      </p>
      <button type="button" className="button button-secondary" onClick={() => resend.mutate()} disabled={resend.isPending}>
        Send again
      </button>
      <Notice kind={resend.isError ? 'error' : 'info'}>{message}</Notice>
    </div>
  );
}

function DonateForm({ campaign, info }: { campaign: CampaignDto; info: PaymentInfoDto }) {
  const { user, isSignedIn, isLoading } = useSession();
  const utils = trpc.useUtils();
  const ids = useId();
  const [preset, setPreset] = useState<number | null>(null);
  const [custom, setCustom] = useState('');
  const [monthly, setMonthly] = useState(false);
  const [email, setEmail] = useState('');
  const [card, setCard] = useState('');
  const [publicName, setPublicName] = useState('');
  const [publicMessage, setPublicMessage] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<Done | null>(null);
  const [redirecting, setRedirecting] = useState(false);
  /** After a failed submit: the errors to move the focus to, once the form is enabled again. */
  const [focusFor, setFocusFor] = useState<FieldErrors | null>(null);
  /** The key of the last submission and what it sent: reused only to retry that same submission after a network failure. */
  const attempt = useRef<{ key: string; sent: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const thanksRef = useRef<HTMLHeadingElement>(null);
  /** A submit waiting for the schema (only the first, and only on a slow connection): another one waits for it. */
  const checking = useRef(false);

  const donate = trpc.donations.donate.useMutation();
  const busy = donate.isPending || redirecting;
  const symbol = CURRENCY_SYMBOL[campaign.currency];
  const amountText = custom.trim() !== '' ? custom.trim() : preset !== null ? String(preset) : '';
  const amountValue = Number(amountText);
  const showAmount = amountText !== '' && Number.isFinite(amountValue) && amountValue >= info.min && amountValue <= info.max;

  useEffect(() => {
    if (done) thanksRef.current?.focus();
  }, [done]);

  // the first field in error gets the focus; a form error gives it back to the button (it was
  // disabled while the request ran, so the focus may have fallen to the page)
  useEffect(() => {
    if (!focusFor || busy) return;
    const name = focusFor.amount
      ? 'amount'
      : focusFor.email
        ? 'email'
        : focusFor.card
          ? 'card'
          : focusFor.publicName
            ? 'publicName'
            : focusFor.publicMessage
              ? 'publicMessage'
              : null;
    const target = name ? formRef.current?.querySelector<HTMLInputElement>(`[name="${name}"]`) : null;
    if (target) target.focus();
    else if (!document.activeElement || document.activeElement === document.body) submitRef.current?.focus();
    setFocusFor(null);
  }, [focusFor, busy]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || checking.current) return;
    const found: FieldErrors = {};
    if (amountText === '') found.amount = CHOOSE_AMOUNT;
    if (!isSignedIn && email.trim() === '') found.email = M.guestEmailRequired;
    if (info.cardInApp && card.trim() === '') found.card = M.cardRequired;
    checking.current = true;
    const v = await validateLazy(donateSchema, {
      amount: amountText,
      monthly: isSignedIn && monthly,
      email: isSignedIn ? undefined : email || undefined,
      card: info.cardInApp ? card || undefined : undefined,
      publicName: publicName.trim() || undefined,
      publicMessage: publicMessage.trim() || undefined,
    });
    checking.current = false;
    if (!v) {
      setErrors({ form: M.requestFailed });
      setFocusFor({});
      return;
    }
    const all = { ...v.errors, ...found };
    setErrors(all);
    if (!v.ok || Object.keys(found).length) {
      setFocusFor(all);
      return;
    }
    const fields = {
      campaignId: campaign._id,
      amount: v.data.amount,
      monthly: v.data.monthly,
      ...(v.data.email ? { email: v.data.email } : {}),
      ...(v.data.card ? { card: v.data.card } : {}),
      ...(v.data.publicName ? { publicName: v.data.publicName } : {}),
      ...(v.data.publicMessage ? { publicMessage: v.data.publicMessage } : {}),
    };
    const sent = JSON.stringify(fields);
    // a new submission gets a new key; the same one retried after a lost answer keeps its key
    const key = attempt.current?.sent === sent ? attempt.current.key : newIdempotencyKey();
    attempt.current = { key, sent };
    donate.mutate(
      { ...fields, idempotencyKey: key },
      {
        onSuccess(donation) {
          attempt.current = null;
          if (donation.checkoutUrl) {
            // a real provider's page takes the card; it sends the payer back to the receipt
            setRedirecting(true);
            window.location.assign(donation.checkoutUrl);
            return;
          }
          void utils.campaigns.invalidate();
          void utils.users.campaigns.invalidate();
          void utils.donations.ofCampaign.invalidate({ campaignId: campaign._id });
          void utils.donations.supported.invalidate();
          void utils.donations.subscriptions.invalidate();
          void utils.donations.recentDonors.invalidate({ campaignId: campaign._id });
          setDone({ donation, monthly: fields.monthly });
        },
        onError(err) {
          // the server answered: that submission is over, the next one is new
          if (httpStatus(err) !== undefined) attempt.current = null;
          // the email was not verified after all (the session check is older): the panel says so
          if (err.message === M.verifyBeforeDonating) void utils.auth.me.invalidate();
          const field = FIELD_OF[err.message];
          if (httpStatus(err) !== undefined && field) {
            const next = { [field]: err.message };
            setErrors(next);
            setFocusFor(next);
          } else {
            setErrors({ form: httpStatus(err) === undefined ? CONNECTION_LOST : errorMessage(err, M.paymentFailed) });
            setFocusFor({});
          }
        },
      },
    );
  }

  function giveAgain() {
    donate.reset();
    setDone(null);
    setErrors({});
    setPreset(null);
    setCustom('');
    setMonthly(false);
    setPublicName('');
    setPublicMessage('');
  }

  if (done) {
    const amount = formatMoney(done.donation.amount, done.donation.currency);
    const pending = done.donation.status === 'pending';
    return (
      <div className="donate-thanks">
        <h3 ref={thanksRef} tabIndex={-1}>
          Thank you!
        </h3>
        <p>
          {done.monthly
            ? `You give ${amount} every month.${pending ? ' The first payment is being confirmed.' : ''}`
            : pending
              ? `Your donation of ${amount} is being confirmed.`
              : `Your donation of ${amount} went through.`}
        </p>
        <p>
          <Link to={done.donation.receiptUrl}>View your receipt</Link>
          {done.monthly && (
            <>
              {' · '}
              <Link to="/my?tab=supported">Manage monthly donations</Link>
            </>
          )}
        </p>
        <p className="share-prompt">Tell your friends: every gift helps.</p>
        <div className="thanks-actions">
          <ShareButton title={campaign.title} className="button button-small" label="Share this campaign" />
          <button type="button" className="button button-secondary" onClick={giveAgain}>
            Give again
          </button>
        </div>
      </div>
    );
  }

  // the fields differ for guests and members: wait for the session check
  if (isLoading) return <Loading />;
  // paying signed in needs a verified email: said before any card is typed
  if (user && !user.emailVerified) return <VerifyToDonate email={user.email} />;

  const amountErrorId = `${ids}-amount-error`;
  const amountHintId = `${ids}-amount-hint`;
  const testCards = info.testCards;
  return (
    <form
      ref={formRef}
      className="form donate-form"
      onSubmit={(e) => void onSubmit(e)}
      onFocus={donateSchema.prefetch}
      onPointerDown={donateSchema.prefetch}
      noValidate
    >
      {info.testMode && (
        <p id={`${ids}-test-mode`} className="notice notice-info test-mode">
          {M.testModeNotice}
        </p>
      )}
      <fieldset className="amount-fieldset" aria-describedby={errors.amount ? amountErrorId : undefined}>
        <legend>Amount</legend>
        <div className="amount-presets">
          {info.presets.map((p) => (
            <label key={p} className="amount-option">
              <input
                type="radio"
                name={`${ids}-preset`}
                value={p}
                checked={custom.trim() === '' && preset === p}
                onChange={() => {
                  setPreset(p);
                  setCustom('');
                  setErrors(({ amount: _, ...rest }) => rest);
                }}
              />
              <span>{formatMoney(p, campaign.currency)}</span>
            </label>
          ))}
        </div>
        <div className="field">
          <FieldLabel htmlFor={`${ids}-custom`} label="Other amount" />
          <div className="input-prefix">
            <span aria-hidden="true">{symbol}</span>
            <input
              id={`${ids}-custom`}
              name="amount"
              type="text"
              inputMode="decimal"
              autoComplete="off"
              value={custom}
              aria-invalid={errors.amount ? true : undefined}
              aria-describedby={[amountHintId, errors.amount ? amountErrorId : ''].filter(Boolean).join(' ')}
              onChange={(e) => {
                setCustom(e.target.value);
                if (e.target.value.trim() !== '') setPreset(null);
              }}
            />
          </div>
          <p id={amountHintId} className="field-hint amount-hint">
            {campaign.currency}, {formatMoney(info.min, campaign.currency)} to {formatMoney(info.max, campaign.currency)}
          </p>
        </div>
        <FieldError id={amountErrorId} error={errors.amount} />
      </fieldset>

      {isSignedIn ? (
        <div className="field">
          <label className="checkbox">
            <input type="checkbox" checked={monthly} onChange={(e) => setMonthly(e.target.checked)} aria-describedby={`${ids}-monthly-hint`} />
            Give monthly
          </label>
          <span id={`${ids}-monthly-hint`} className="field-hint">
            Charged each month until you cancel it (My, Supported tab).
          </span>
        </div>
      ) : (
        <>
          <Field
            label="Email"
            hint="for your receipt"
            type="email"
            name="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
          <p className="field-note muted">
            <Link to="/login">Log in</Link> to give monthly.
          </p>
        </>
      )}

      {info.cardInApp && (
        <div className="field">
          <FieldLabel htmlFor={`${ids}-card`} label="Card number" />
          <input
            id={`${ids}-card`}
            name="card"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            placeholder={testCards ? groupsOf4(testCards.succeeds) : undefined}
            value={card}
            aria-invalid={errors.card ? true : undefined}
            aria-describedby={[info.testMode ? `${ids}-test-mode` : '', testCards ? `${ids}-cards` : '', errors.card ? `${ids}-card-error` : '']
              .filter(Boolean)
              .join(' ')}
            onChange={(e) => setCard(e.target.value)}
          />
          {testCards && (
            <p id={`${ids}-cards`} className="field-hint test-cards">
              Test cards: {groupsOf4(testCards.succeeds)} succeeds, {groupsOf4(testCards.declined)} is declined, {groupsOf4(testCards.insufficientFunds)} has
              insufficient funds.
            </p>
          )}
          <FieldError id={`${ids}-card-error`} error={errors.card} />
        </div>
      )}

      <fieldset className="public-note" aria-describedby={`${ids}-public-hint`}>
        <legend>Show your gift (optional)</legend>
        <p className="field-hint" id={`${ids}-public-hint`}>
          Without a name your gift shows as Anonymous in Recent donors. With a name, its amount shows too.
        </p>
        <Field
          label="Public name"
          name="publicName"
          autoComplete="nickname"
          maxLength={PUBLIC_NAME_MAX}
          value={publicName}
          onChange={(e) => setPublicName(e.target.value)}
          hint={`up to ${PUBLIC_NAME_MAX} characters`}
          error={errors.publicName}
        />
        <div className="field">
          <FieldLabel htmlFor={`${ids}-message`} label="Public message" />
          <textarea
            id={`${ids}-message`}
            name="publicMessage"
            rows={3}
            maxLength={PUBLIC_MESSAGE_MAX}
            value={publicMessage}
            aria-invalid={errors.publicMessage ? true : undefined}
            aria-describedby={[`${ids}-message-count`, errors.publicMessage ? `${ids}-message-error` : ''].filter(Boolean).join(' ')}
            onChange={(e) => setPublicMessage(e.target.value)}
          />
          <p id={`${ids}-message-count`} className="field-hint">
            {publicMessage.length} of {PUBLIC_MESSAGE_MAX} characters
          </p>
          <FieldError id={`${ids}-message-error`} error={errors.publicMessage} />
        </div>
      </fieldset>

      <Notice kind="error">{errors.form}</Notice>
      <button ref={submitRef} type="submit" className="button button-block button-large" disabled={busy}>
        {busy ? PROCESSING : showAmount ? `Donate ${formatMoney(amountValue, campaign.currency)}${isSignedIn && monthly ? ' monthly' : ''}` : 'Donate'}
      </button>
      <p className="visually-hidden" role="status" aria-live="polite">
        {busy ? PROCESSING : ''}
      </p>
    </form>
  );
}
