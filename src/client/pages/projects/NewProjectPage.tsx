import { ComingSoon } from '../../components/ComingSoon';

export default function NewProjectPage() {
  return <ComingSoon title="New project" />;
}
