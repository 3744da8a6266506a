import { ComingSoon } from '../../components/ComingSoon';

export default function ProjectsPage() {
  return <ComingSoon title="Projects" />;
}
