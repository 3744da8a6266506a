import { ComingSoon } from '../../components/ComingSoon';

export default function ProjectDetailPage() {
  return <ComingSoon title="Project" />;
}
