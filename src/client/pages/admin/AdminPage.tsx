import { ComingSoon } from '../../components/ComingSoon';

export default function AdminPage() {
  return <ComingSoon title="Admin" />;
}
