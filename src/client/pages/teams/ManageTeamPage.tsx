import { ComingSoon } from '../../components/ComingSoon';

export default function ManageTeamPage() {
  return <ComingSoon title="Manage team" />;
}
