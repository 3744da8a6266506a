import { ComingSoon } from '../../components/ComingSoon';

export default function TeamsPage() {
  return <ComingSoon title="Teams" />;
}
