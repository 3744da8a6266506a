import { ComingSoon } from '../../components/ComingSoon';

export default function MyCampaignsPage() {
  return <ComingSoon title="My campaigns" />;
}
