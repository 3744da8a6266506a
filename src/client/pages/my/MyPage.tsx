import { ComingSoon } from '../../components/ComingSoon';

export default function MyPage() {
  return <ComingSoon title="My" />;
}
