import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { JoinInput, type PreviewKind } from '../../../shared/schemas/previews';
import { loginPathFor } from '../../auth/returnTo';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { Field } from '../Field';
import { Notice } from '../Notice';
import { joinAfterSignIn } from './joinKey';

/**
 * The page a signed-out person holding an email invite gets instead of the draft (issue #30):
 * sign in (and come back here), or continue under a name they type. Once they continue the
 * draft is shown (`previews.me` answers again, with their name).
 */
export function GuestContinue({ kind, id }: { kind: PreviewKind; id: string }) {
  usePageTitle(M.privatePreview);
  const headingId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const utils = trpc.useUtils();
  const join = trpc.previews.join.useMutation({
    onSuccess: (me) => {
      utils.previews.me.setData({ kind, id }, me);
    },
  });
  const path = `/${kind}s/${id}`;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const v = JoinInput.safeParse({ name });
    if (!v.success) {
      setError(v.error.issues[0]?.message ?? M.previewGuestName);
      formRef.current?.querySelector('input')?.focus();
      return;
    }
    setError(undefined);
    join.mutate({ kind, id, data: v.data });
  }

  return (
    <section className="page page-narrow preview-continue" aria-labelledby={headingId}>
      <div className="card">
        <h1 id={headingId}>{M.privatePreview}</h1>
        <p>You were invited to see a draft before it goes public. Sign in if you have an account, or continue under your name.</p>
        <p className="muted">{M.previewVisitsNotice}</p>
        <p>
          <Link
            className="button button-secondary"
            to={loginPathFor(path)}
            onClick={() => {
              try {
                sessionStorage.setItem(joinAfterSignIn(id), '1');
              } catch {
                // storage refused: the invite simply stays untied to the account
              }
            }}
          >
            Sign in
          </Link>
        </p>
        <form ref={formRef} className="form" onSubmit={submit} noValidate>
          <h2>Continue without an account</h2>
          <Field
            label="Your name"
            hint="The owner sees it with your visits and your feedback."
            value={name}
            maxLength={60}
            autoComplete="name"
            onChange={(e) => setName(e.target.value)}
            error={error}
          />
          <div className="form-actions">
            <button type="submit" className="button" disabled={join.isPending}>
              {join.isPending ? 'Continuing…' : 'Continue'}
            </button>
          </div>
          <Notice kind="error">{join.isError ? errorMessage(join.error, M.requestFailed) : null}</Notice>
        </form>
      </div>
    </section>
  );
}
