import { ComingSoon } from '../../components/ComingSoon';

export default function CampaignsPage() {
  return <ComingSoon title="Campaigns" />;
}
