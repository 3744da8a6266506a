import { ComingSoon } from '../../components/ComingSoon';

export default function BlockedPage() {
  return <ComingSoon title="Blocked profiles" />;
}
