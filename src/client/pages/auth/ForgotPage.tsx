import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { ForgotPasswordInput } from '../../../shared/schemas/auth';
import { EmailField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

export default function ForgotPage() {
  const [email, setEmail] = useState('');
  const { formRef, errors, show: setErrors } = useFormErrors();
  const forgot = trpc.auth.forgotPassword.useMutation();

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (forgot.isPending) return;
    const v = validate(ForgotPasswordInput, { email });
    setErrors(v.errors);
    if (v.ok) forgot.mutate(v.data);
  }

  return (
    <AuthCard title="Forgot password" footer={<Link to="/login">Back to log in</Link>}>
      <p className="muted">Enter your email and we will send you a link to choose a new password.</p>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onValue={setEmail} error={errors.email} />
        <Notice kind="success">{forgot.isSuccess ? forgot.data.message || M.emailSentIfExists : null}</Notice>
        <Notice kind="error">{forgot.isError ? errorMessage(forgot.error, M.requestFailed) : null}</Notice>
        <button type="submit" className="button button-block" disabled={forgot.isPending}>
          {M.sendResetLink}
        </button>
      </form>
    </AuthCard>
  );
}
