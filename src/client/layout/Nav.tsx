import { Link, NavLink } from 'react-router-dom';
import { M } from '../../shared/messages';
import { useLogout, useSession } from '../auth/useSession';

function Item({ to, children }: { to: string; children: string }) {
  return (
    <li>
      <NavLink to={to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
        {children}
      </NavLink>
    </li>
  );
}

/** Top bar (spec section 2): Campaigns and Projects always; the rest depends on the session. */
export function Nav() {
  const { user, isSignedIn, isAdmin, isLoading } = useSession();
  const avatar = user?.avatarUrl || user?.imageUrl;
  const { logout, isPending } = useLogout();
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <span>{M.brand}</span>
        </Link>
        <nav aria-label="Main">
          <ul className="nav-list">
            <Item to="/campaigns">{M.navCampaigns}</Item>
            <Item to="/projects">{M.navProjects}</Item>
            {isLoading ? null : isSignedIn ? (
              <>
                <Item to="/favorites">{M.navFavorites}</Item>
                <Item to="/my">{M.navMy}</Item>
                <li>
                  {/* the picture is decorative: the link's name stays 'Account' */}
                  <NavLink to="/account" className={({ isActive }) => (isActive ? 'nav-link nav-account active' : 'nav-link nav-account')}>
                    {avatar && <img className="nav-avatar" src={avatar} alt="" width={24} height={24} />}
                    {M.navAccount}
                  </NavLink>
                </li>
                {isAdmin && <Item to="/admin">{M.navAdmin}</Item>}
                <li>
                  <button type="button" className="nav-link nav-button" onClick={() => void logout()} disabled={isPending}>
                    {M.navLogout}
                  </button>
                </li>
              </>
            ) : (
              <Item to="/login">{M.navLogin}</Item>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}
