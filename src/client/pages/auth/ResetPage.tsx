import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { ResetPasswordInput } from '../../../shared/schemas/auth';
import { PasswordField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

export default function ResetPage() {
  const { token = '' } = useParams();
  const [password, setPassword] = useState('');
  const { formRef, errors, show: setErrors } = useFormErrors();
  const reset = trpc.auth.resetPassword.useMutation();

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (reset.isPending) return;
    const v = validate(ResetPasswordInput, { token, password });
    setErrors(v.errors);
    if (v.ok) reset.mutate(v.data);
  }

  return (
    <AuthCard title="Choose a new password" footer={<Link to="/login">Go to log in</Link>}>
      {reset.isSuccess ? (
        <Notice kind="success">{reset.data.message || M.passwordReset}</Notice>
      ) : (
        <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
          <PasswordField kind="new" label="New password" value={password} onValue={setPassword} error={errors.password} />
          <Notice kind="error">{errors.token ?? (reset.isError ? errorMessage(reset.error, M.requestFailed) : null)}</Notice>
          <button type="submit" className="button button-block" disabled={reset.isPending}>
            {M.updatePassword}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
