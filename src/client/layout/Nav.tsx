import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { M } from '../../shared/messages';
import { useLogout, useSession } from '../auth/useSession';
import { useNarrow } from '../hooks/useNarrow';

function Item({ to, children }: { to: string; children: string }) {
  return (
    <li>
      <NavLink to={to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
        {children}
      </NavLink>
    </li>
  );
}

/**
 * Top bar (spec section 2): Campaigns, Projects, Teams and Profiles always; the rest depends on
 * the session (Favorites, My, Account, Admin for admins, Logout; or Login). From 640 px the links
 * sit in the bar; below, they fold into a Menu button (a disclosure: aria-expanded and
 * aria-controls; Escape closes it and returns the focus to the button; following a link, a click
 * outside or the focus moving on past the last link closes it).
 */
export function Nav() {
  const { user, isSignedIn, isAdmin, isLoading } = useSession();
  const avatar = user?.avatarUrl || user?.imageUrl;
  const { logout, isPending } = useLogout();
  const narrow = useNarrow();
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const navRef = useRef<HTMLElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const location = useLocation();

  // a link followed (or a wider screen) closes the menu
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect runs because the page or the width changed; it reads neither
  useEffect(() => setOpen(false), [location.pathname, location.search, narrow]);

  // a click or tap outside the open menu closes it
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      if (navRef.current && !navRef.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  // the open menu covers the page: when the focus moves on past it, it closes
  function onBlur(e: FocusEvent<HTMLElement>) {
    if (open && !(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setOpen(false);
  }

  function onKeyDown(e: KeyboardEvent<HTMLElement>) {
    if (e.key !== 'Escape' || !open) return;
    e.preventDefault();
    setOpen(false);
    buttonRef.current?.focus();
  }

  const folded = narrow && !open;
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <span>{M.brand}</span>
        </Link>
        <nav ref={navRef} aria-label="Main" className={`main-nav${open ? ' main-nav-open' : ''}`} onKeyDown={onKeyDown} onBlur={onBlur}>
          {narrow && (
            <button ref={buttonRef} type="button" className="nav-toggle" aria-expanded={open} aria-controls={menuId} onClick={() => setOpen((o) => !o)}>
              <span className="nav-toggle-icon" aria-hidden="true" />
              Menu
            </button>
          )}
          <div id={menuId} className="nav-menu" hidden={folded}>
            <ul className="nav-list">
              <Item to="/campaigns">{M.navCampaigns}</Item>
              <Item to="/projects">{M.navProjects}</Item>
              <Item to="/teams">Teams</Item>
              <Item to="/profiles">Profiles</Item>
            </ul>
            <ul className="nav-list nav-session">
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
          </div>
        </nav>
      </div>
    </header>
  );
}
