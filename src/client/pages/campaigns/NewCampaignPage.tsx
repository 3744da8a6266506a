import { useNavigate } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { CreateCampaignInput } from '../../../shared/schemas/campaigns';
import { ItemForm } from '../../components/ItemForm';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { withNotice } from './pageNotice';

/** /campaigns/new: the create-campaign form; on success the new campaign's page, which says "Campaign created." once. */
export default function NewCampaignPage() {
  usePageTitle('New campaign');
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const create = trpc.campaigns.create.useMutation({
    onSuccess(campaign) {
      utils.campaigns.get.setData({ id: campaign._id }, campaign);
      void utils.campaigns.list.reset();
      void navigate(`/campaigns/${encodeURIComponent(campaign._id)}`, { state: withNotice(M.campaignCreated) });
    },
  });
  return (
    <section className="page page-form">
      <h1>New campaign</h1>
      <div className="card">
        <ItemForm
          variant="campaign"
          keepKey="campaign:new"
          schema={CreateCampaignInput}
          submitLabel={M.publishNow}
          draftOption
          busy={create.isPending || create.isSuccess}
          error={create.isError ? errorMessage(create.error, M.createCampaignFailed) : null}
          onSubmit={(data) => create.mutate(data)}
        />
      </div>
    </section>
  );
}
