import { ComingSoon } from '../../components/ComingSoon';

export default function VerifyJoinPage() {
  return <ComingSoon title="Confirm your support" />;
}
