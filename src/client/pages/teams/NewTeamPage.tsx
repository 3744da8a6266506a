import { ComingSoon } from '../../components/ComingSoon';

export default function NewTeamPage() {
  return <ComingSoon title="New team" />;
}
