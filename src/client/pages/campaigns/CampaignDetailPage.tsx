import { ComingSoon } from '../../components/ComingSoon';

export default function CampaignDetailPage() {
  return <ComingSoon title="Campaign" />;
}
