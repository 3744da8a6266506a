import { ComingSoon } from '../../components/ComingSoon';

export default function NewCampaignPage() {
  return <ComingSoon title="New campaign" />;
}
