import { Link } from 'react-router-dom';
import { Tabs, useTabParam, type TabDef } from '../../components/Tabs';
import { usePageTitle } from '../../hooks/usePageTitle';
import { AdminDisputes } from './AdminDisputes';
import { AdminPayments } from './AdminPayments';
import { AdminPayouts } from './AdminPayouts';
import { AdminTokens } from './AdminTokens';
import { AdminUsers } from './AdminUsers';

type TabId = 'payouts' | 'disputes' | 'payments' | 'tokens' | 'users' | 'cron';
const TABS: readonly TabDef<TabId>[] = [
  { id: 'payouts', label: 'Payouts' },
  { id: 'disputes', label: 'Disputes' },
  { id: 'payments', label: 'Payments' },
  { id: 'tokens', label: 'Tokens' },
  { id: 'users', label: 'Users' },
  { id: 'cron', label: 'Cron' },
];
const IDS = TABS.map((t) => t.id);

/**
 * /admin (admins only): the console's tabs (the spec's, and Payments: the providers' events that
 * did not fit their donation); the selected one is kept in `?tab=`.
 */
export default function AdminPage() {
  usePageTitle('Admin');
  const [tab, setTab] = useTabParam<TabId>(IDS, 'payouts');
  return (
    <section className="page admin-console">
      <div className="page-head">
        <h1>Admin</h1>
      </div>
      <Tabs label="Admin sections" tabs={TABS} selected={tab} onSelect={setTab}>
        {tab === 'payouts' && <AdminPayouts />}
        {tab === 'disputes' && <AdminDisputes />}
        {tab === 'payments' && <AdminPayments />}
        {tab === 'tokens' && <AdminTokens />}
        {tab === 'users' && <AdminUsers />}
        {/* the spec's Cron tab shows nothing of its own: the jobs have their own page */}
        {tab === 'cron' && (
          <p className="muted admin-cron-link">
            <Link to="/admin/cron">Subscription Cron</Link>
          </p>
        )}
      </Tabs>
    </section>
  );
}
