import { ComingSoon } from '../../components/ComingSoon';

export default function MyDisputesPage() {
  return <ComingSoon title="My disputes" />;
}
