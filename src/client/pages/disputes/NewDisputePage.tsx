import { ComingSoon } from '../../components/ComingSoon';

export default function NewDisputePage() {
  return <ComingSoon title="Raise a Dispute" />;
}
