import { ComingSoon } from '../../components/ComingSoon';

export default function ProfilesPage() {
  return <ComingSoon title="Profiles" />;
}
