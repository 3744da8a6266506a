import { useState, type FormEvent } from 'react';
import { M } from '../../../shared/messages';
import { ChangePasswordInput } from '../../../shared/schemas/auth';
import { PasswordField } from '../../components/AccountFields';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';

/** Change password: every other session ends; this browser gets a fresh session cookie. */
export function ChangePasswordForm() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const { formRef, errors, show: setErrors } = useFormErrors();
  const change = trpc.auth.changePassword.useMutation({
    onSuccess: () => {
      setCurrent('');
      setNew('');
    },
  });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (change.isPending) return;
    const v = validate(ChangePasswordInput, { currentPassword, newPassword });
    setErrors(v.errors);
    if (v.ok) change.mutate(v.data);
  }

  return (
    <section className="card" aria-labelledby="change-password-title">
      <h2 id="change-password-title">Change password</h2>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <PasswordField
          kind="current"
          label="Current password"
          name="currentPassword"
          value={currentPassword}
          onValue={setCurrent}
          error={errors.currentPassword}
        />
        <PasswordField kind="new" label="New password" name="newPassword" value={newPassword} onValue={setNew} error={errors.newPassword} />
        <Notice kind="error">{change.isError ? errorMessage(change.error, M.passwordChangeFailed) : null}</Notice>
        <Notice kind="success">{change.isSuccess ? M.passwordChanged : null}</Notice>
        <button type="submit" className="button" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </section>
  );
}
