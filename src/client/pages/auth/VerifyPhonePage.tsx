import { Link } from 'react-router-dom';
import { AuthCard } from './AuthCard';

/** Spec placeholder: the route exists, its content is not specified. */
export default function VerifyPhonePage() {
  return (
    <AuthCard title="Verify phone" footer={<Link to="/">Back to home</Link>}>
      <p className="muted">Phone verification is not available yet.</p>
    </AuthCard>
  );
}
