import { ComingSoon } from '../../components/ComingSoon';

export default function EditProjectPage() {
  return <ComingSoon title="Edit project" />;
}
