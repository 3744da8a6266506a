import { usePageTitle } from '../../hooks/usePageTitle';
import { ChangePasswordForm } from './ChangePasswordForm';

export default function AccountPage() {
  usePageTitle('Account');
  return (
    <div className="page page-narrow">
      <h1>Account</h1>
      <ChangePasswordForm />
    </div>
  );
}
