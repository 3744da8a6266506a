import { useState, type FormEvent } from 'react';
import { M } from '../../../shared/messages';
import { StoreTokenInput } from '../../../shared/schemas/admin';
import { Field } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { DataTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

type Errors = { name?: string; value?: string };

/** The Tokens tab: store a secret (name and value; a stored name gets its value replaced); the list shows names and dates only. */
export function AdminTokens() {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [done, setDone] = useState<string | null>(null);
  const utils = trpc.useUtils();
  const tokens = trpc.admin.tokens.useQuery();
  const store = trpc.admin.storeToken.useMutation({ onSettled: () => void utils.admin.tokens.invalidate() });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setDone(null);
    const parsed = StoreTokenInput.safeParse({ name, value });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] as keyof Errors;
        next[key] ??= issue.message;
      }
      setErrors(next);
      const form = e.currentTarget;
      const first = next.name ? 'name' : 'value';
      form.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus();
      return;
    }
    setErrors({});
    store.mutate(parsed.data, {
      onSuccess: (r) => {
        setValue('');
        setName('');
        setDone(r.replaced ? `The value of ${r.name} was replaced.` : `Token ${r.name} stored.`);
      },
    });
  }

  return (
    <div className="admin-section admin-tokens">
      <form className="form admin-token-form" onSubmit={onSubmit} noValidate aria-label="Add a token">
        <h2>Add a token</h2>
        <div className="form-row">
          <Field
            label="Name"
            name="name"
            value={name}
            error={errors.name}
            autoComplete="off"
            spellCheck={false}
            maxLength={100}
            onChange={(e) => setName(e.target.value)}
          />
          <Field
            label="Value"
            name="value"
            type="password"
            value={value}
            error={errors.value}
            autoComplete="new-password"
            spellCheck={false}
            onChange={(e) => setValue(e.target.value)}
          />
        </div>
        <div className="form-actions">
          <button type="submit" className="button" disabled={store.isPending}>
            {store.isPending ? 'Storing…' : 'Store token'}
          </button>
        </div>
        <Notice kind="error">{store.error ? errorMessage(store.error, M.requestFailed) : null}</Notice>
        <Notice kind="success">{done}</Notice>
      </form>
      <h2>Stored tokens</h2>
      {tokens.isPending ? (
        <Loading />
      ) : tokens.isError ? (
        <div className="list-error">
          <Notice kind="error">{errorMessage(tokens.error, M.requestFailed)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void tokens.refetch()}>
            Try again
          </button>
        </div>
      ) : tokens.data.length === 0 ? (
        <p className="muted">No tokens stored yet.</p>
      ) : (
        <DataTable
          items={tokens.data}
          label="Stored tokens"
          className="admin-table"
          rowKey={(t) => t.name}
          columns={[
            { label: 'Name', head: true, token: true, className: 'token-name', cell: (t) => t.name },
            { label: 'Created', className: 'date-cell', cell: (t) => formatDateTime(t.createdAt) },
          ]}
        />
      )}
    </div>
  );
}
