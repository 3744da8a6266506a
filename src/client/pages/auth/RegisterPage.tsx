import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { RegisterInput } from '../../../shared/schemas/auth';
import { EmailField, PasswordField, PhoneField, UsernameField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

export default function RegisterPage() {
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [phone, setPhone] = useState('');
  const [password, setPassword] = useState('');
  const { formRef, errors, show: setErrors } = useFormErrors();
  const register = trpc.auth.register.useMutation();
  const doneRef = useRef<HTMLDivElement>(null);
  // the form is gone once it succeeded: the focus goes to what replaced it
  useEffect(() => {
    if (register.isSuccess) doneRef.current?.focus();
  }, [register.isSuccess]);

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (register.isPending) return;
    const v = validate(RegisterInput, { email, username, phone, password });
    setErrors(v.errors);
    if (v.ok) register.mutate(v.data);
  }

  const loginLink = (
    <span>
      Already have an account? <Link to="/login">Log in</Link>
    </span>
  );

  if (register.isSuccess) {
    return (
      <AuthCard title="Create account">
        <div ref={doneRef} tabIndex={-1} className="register-done">
          <Notice kind="success">{register.data.message || M.registered}</Notice>
          {/* registering does not sign in (an existing address gets the same answer): say what comes next */}
          <p>You can log in now with your email and password; the link in the email confirms your address.</p>
        </div>
        <Link className="button button-block" to="/login">
          Log in
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Create account" footer={loginLink}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onValue={setEmail} error={errors.email} />
        <UsernameField value={username} onValue={setUsername} error={errors.username} />
        <PhoneField value={phone} onValue={setPhone} error={errors.phone} />
        <PasswordField kind="new" value={password} onValue={setPassword} error={errors.password} />
        <Notice kind="error">{register.isError ? errorMessage(register.error, M.requestFailed) : null}</Notice>
        <button type="submit" className="button button-block" disabled={register.isPending}>
          Create account
        </button>
      </form>
    </AuthCard>
  );
}
