import { M } from '../../../shared/messages';
import { ComingSoon } from '../../components/ComingSoon';

/** Spec placeholder: 'Your projects will appear here.' */
export default function MyProjectsPage() {
  return <ComingSoon title="My projects">{M.myProjectsPlaceholder}</ComingSoon>;
}
