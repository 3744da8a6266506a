import { Link } from 'react-router-dom';
import { useSession } from '../../auth/useSession';
import { Loading } from '../../components/Loading';
import { usePageTitle } from '../../hooks/usePageTitle';
import { AvatarSection } from './AvatarSection';
import { ChangePasswordForm } from './ChangePasswordForm';
import { ProfileForm } from './ProfileForm';

/** /account (signed in only): profile image with crop, profile details, change password. */
export default function AccountPage() {
  usePageTitle('Account');
  const { user } = useSession();
  return (
    <div className="page page-narrow account-page">
      <h1>Account</h1>
      {user ? (
        <>
          <AvatarSection user={user} />
          {/* keyed by the user so a fresh session's values replace the form's */}
          <ProfileForm key={user._id} user={user} />
          <p className="account-links">
            <Link to={`/profiles/${encodeURIComponent(user._id)}`}>View your public profile</Link>
            <Link to="/blocked">Blocked profiles</Link>
          </p>
        </>
      ) : (
        <Loading />
      )}
      <ChangePasswordForm />
    </div>
  );
}
