import { useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { safeReturnPath } from '../../auth/returnTo';
import { EmailField, PasswordField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { lazySchema, useFormErrors, validateLazy } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

const loginSchema = lazySchema(() => import('../../../shared/schemas/auth').then((m) => m.LoginInput));

export default function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { formRef, errors, show: setErrors } = useFormErrors();
  const [params] = useSearchParams();
  // the session cookie is set by the answer; a full page load starts the app signed in, on the
  // page a guard sent the person from (?next=, a path of this site only), else on /
  const login = trpc.auth.login.useMutation({
    onSuccess: () => window.location.assign(safeReturnPath(params.get('next'), window.location.origin)),
  });
  const busy = login.isPending || login.isSuccess;
  /** A submit waiting for the schema (only the first, and only on a slow connection): a second one waits for it. */
  const checking = useRef(false);
  const [loadError, setLoadError] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || checking.current) return;
    checking.current = true;
    const v = await validateLazy(loginSchema, { email, password });
    checking.current = false;
    setLoadError(v === null);
    if (!v) return;
    setErrors(v.errors);
    if (v.ok) login.mutate(v.data);
  }

  return (
    <AuthCard
      title="Log in"
      footer={
        <>
          <Link to="/forgot">Forgot password?</Link>
          <span>
            New here? <Link to="/register">Create an account</Link>
          </span>
        </>
      }
    >
      <form ref={formRef} className="form" onSubmit={(e) => void onSubmit(e)} onFocus={loginSchema.prefetch} onPointerDown={loginSchema.prefetch} noValidate>
        <EmailField value={email} onValue={setEmail} error={errors.email} />
        <PasswordField kind="current" value={password} onValue={setPassword} error={errors.password} />
        <Notice kind="error">{login.isError ? errorMessage(login.error, M.requestFailed) : loadError ? M.requestFailed : null}</Notice>
        <button type="submit" className="button button-block" disabled={busy}>
          Log in
        </button>
      </form>
    </AuthCard>
  );
}
