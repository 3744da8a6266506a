import { useState, type FormEvent } from 'react';
import { M } from '../../../shared/messages';
import { UpdateProfileInput } from '../../../shared/schemas/profiles';
import type { UserDto } from '../../../shared/schemas/user';
import { PhoneField, UsernameField } from '../../components/AccountFields';
import { Field } from '../../components/Field';
import { Notice } from '../../components/Notice';
import { TagInput } from '../../components/TagInput';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';

/**
 * Profile details (spec sections 2 and 7): username, phone, name and tags, saved with
 * users.updateProfile. An empty username or phone clears it. 'Profile updated.' on success, else
 * the server's message or 'Failed to update profile'. The session's cached user is replaced by the
 * answer, so the navigation and other pages show the change at once.
 */
export function ProfileForm({ user }: { user: UserDto }) {
  const utils = trpc.useUtils();
  const [username, setUsername] = useState(user.username ?? '');
  const [phone, setPhone] = useState(user.phone ?? '');
  const [name, setName] = useState(user.name ?? '');
  const [tags, setTags] = useState<string[]>(user.tags);
  const { formRef, errors, show: setErrors } = useFormErrors();
  const update = trpc.users.updateProfile.useMutation({
    onSuccess: (saved) => {
      utils.auth.me.setData(undefined, saved);
      setUsername(saved.username ?? '');
      setPhone(saved.phone ?? '');
      setName(saved.name ?? '');
      setTags(saved.tags);
      void utils.users.invalidate();
    },
  });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (update.isPending) return;
    update.reset();
    const v = validate(UpdateProfileInput, { username, phone, name, tags });
    setErrors(v.errors);
    if (v.ok) update.mutate({ username, phone, name, tags });
  }

  return (
    <section className="card">
      <h2>Profile details</h2>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <UsernameField value={username} onValue={setUsername} error={errors.username} />
        <PhoneField value={phone} onValue={setPhone} error={errors.phone} />
        <Field label="Name" hint="optional" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} />
        <TagInput label="Tags" hint="what you do or like" tags={tags} onChange={setTags} error={errors.tags} />
        <Notice kind="error">{update.isError ? errorMessage(update.error, M.profileUpdateFailed) : null}</Notice>
        <Notice kind="success">{update.isSuccess ? M.profileUpdated : null}</Notice>
        <button type="submit" className="button" disabled={update.isPending}>
          Save profile
        </button>
      </form>
    </section>
  );
}
