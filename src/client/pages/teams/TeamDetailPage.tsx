import { ComingSoon } from '../../components/ComingSoon';

export default function TeamDetailPage() {
  return <ComingSoon title="Team" />;
}
