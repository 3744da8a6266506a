import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { LoginInput } from '../../../shared/schemas/auth';
import { Field } from '../../components/Field';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { validate, type FieldErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

export default function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  // the session cookie is set by the answer; a full load of / starts the app signed in
  const login = trpc.auth.login.useMutation({ onSuccess: () => window.location.assign('/') });
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
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label="Email"
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errors.email}
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        <Notice kind="error">{login.isError ? errorMessage(login.error, M.requestFailed) : null}</Notice>
        <button type="submit" className="button button-block" disabled={busy}>
          Log in
        </button>
      </form>
    </AuthCard>
  );
}
