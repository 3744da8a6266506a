import { ComingSoon } from '../../components/ComingSoon';

export default function AdminCronPage() {
  return <ComingSoon title="Subscription Cron" />;
}
