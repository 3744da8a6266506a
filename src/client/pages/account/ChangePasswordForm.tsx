import { useState, type FormEvent } from 'react';
import { M } from '../../../shared/messages';
import { ChangePasswordInput } from '../../../shared/schemas/auth';
import { Field } from '../../components/Field';
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
        <Field
          label="Current password"
          required
          type="password"
          name="currentPassword"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrent(e.target.value)}
          error={errors.currentPassword}
        />
        <Field
          label="New password"
          required
          type="password"
          name="newPassword"
          autoComplete="new-password"
          value={newPassword}
          onChange={(e) => setNew(e.target.value)}
          error={errors.newPassword}
        />
        <Notice kind="error">{change.isError ? errorMessage(change.error, M.passwordChangeFailed) : null}</Notice>
        <Notice kind="success">{change.isSuccess ? M.passwordChanged : null}</Notice>
        <button type="submit" className="button" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </section>
  );
}
