import { Link, useNavigate, useParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { UpdateCampaignInput } from '../../../shared/schemas/campaigns';
import { useSession } from '../../auth/useSession';
import { ItemForm, type ItemFormValues } from '../../components/ItemForm';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { DISCARD_FORM } from '../../hooks/useLeaveGuard';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { withNotice } from './pageNotice';

const TITLE = 'Edit campaign';

function toFormValues(c: CampaignDto): ItemFormValues {
  return {
    title: c.title,
    type: c.type,
    goalAmount: c.goalAmount > 0 ? String(c.goalAmount) : '',
    currency: c.currency,
    description: c.description,
    tags: c.tags,
    actionMode: c.actionMode,
    // the date is stored as the day's midnight UTC (what the date box sends)
    executionDate: c.executionDate ? c.executionDate.toISOString().slice(0, 10) : '',
    targetType: c.targetType,
    cover: c.imageUrl ? { url: c.imageUrl, alt: '' } : null,
    images: c.images.map((i) => ({ url: i.url, alt: i.alt })),
  };
}

/** The page's frame while it cannot show the form: a heading, a message and a way back. */
function Blocked({ heading, message, back }: { heading: string; message?: string; back: { to: string; label: string } }) {
  return (
    <section className="page page-form">
      <h1>{heading}</h1>
      {message && <Notice kind="error">{message}</Notice>}
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </section>
  );
}

/**
 * /campaigns/{id}/edit (signed in): the create form filled in; the owner saves with
 * campaigns.update and lands on the campaign with "Changes saved.". Once money has moved, the
 * currency (and the goal kind) are shown disabled with the reason: the server refuses them (409).
 */
export default function EditCampaignPage() {
  usePageTitle(TITLE);
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { user } = useSession();
  const utils = trpc.useUtils();
  const campaign = trpc.campaigns.get.useQuery({ id }, { enabled: id !== '' });
  const isOwner = user !== null && campaign.data !== undefined && campaign.data.ownerId._id === user._id;
  const locks = trpc.campaigns.editLocks.useQuery({ id }, { enabled: isOwner });
  const update = trpc.campaigns.update.useMutation({
    onSuccess(saved) {
      utils.campaigns.get.setData({ id: saved._id }, saved);
      void utils.campaigns.list.reset();
      void utils.users.campaigns.reset();
      void utils.campaigns.editLocks.invalidate({ id: saved._id });
      void navigate(`/campaigns/${encodeURIComponent(saved._id)}`, { state: withNotice(M.campaignSaved) });
    },
  });

  if (campaign.isPending) return <Loading />;
  if (campaign.isError) {
    const notFound = httpStatus(campaign.error) === 404;
    return (
      <Blocked
        heading={notFound ? M.notFound : TITLE}
        message={notFound ? undefined : errorMessage(campaign.error, M.loadCampaignFailed)}
        back={{ to: '/campaigns', label: M.backToCampaigns }}
      />
    );
  }
  const c = campaign.data;
  const back = { to: `/campaigns/${encodeURIComponent(c._id)}`, label: 'Back to the campaign' };
  if (!isOwner) return <Blocked heading={TITLE} message={M.notOwner} back={back} />;
  if (locks.isPending) return <Loading />;
  if (locks.isError) return <Blocked heading={TITLE} message={errorMessage(locks.error, M.loadCampaignFailed)} back={back} />;
  const { currencyLocked, targetTypeLocked } = locks.data;

  return (
    <section className="page page-form">
      <h1>{TITLE}</h1>
      <div className="card">
        <ItemForm
          // a fresh form for each loaded campaign
          key={c._id}
          keepKey={`campaign:${c._id}`}
          variant="campaign"
          schema={UpdateCampaignInput}
          initial={toFormValues(c)}
          locked={{
            ...(currencyLocked ? { currency: M.currencyLocked } : {}),
            ...(targetTypeLocked ? { targetType: M.targetTypeLocked } : {}),
          }}
          submitLabel="Save changes"
          busy={update.isPending || update.isSuccess}
          error={update.isError ? errorMessage(update.error, M.createCampaignFailed) : null}
          onSubmit={(data) => update.mutate({ id: c._id, data })}
          secondary={
            <Link className="button button-large button-ghost" to={back.to} state={DISCARD_FORM}>
              Cancel
            </Link>
          }
        />
      </div>
    </section>
  );
}
