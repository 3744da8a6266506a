import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { LoginInput } from '../../../shared/schemas/auth';
import { safeReturnPath } from '../../auth/returnTo';
import { EmailField, PasswordField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

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

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    const v = validate(LoginInput, { email, password });
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
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onValue={setEmail} error={errors.email} />
        <PasswordField kind="current" value={password} onValue={setPassword} error={errors.password} />
        <Notice kind="error">{login.isError ? errorMessage(login.error, M.requestFailed) : null}</Notice>
        <button type="submit" className="button button-block" disabled={busy}>
          Log in
        </button>
      </form>
    </AuthCard>
  );
}
