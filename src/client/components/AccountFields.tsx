import { Field } from './Field';

/*
 * The account fields that several forms ask for (log in, register, forgot and reset password,
 * change password, profile), each written once: its label, its type, what the browser may fill
 * in (autocomplete) and whether it is required. A form gives the value, the change and the error.
 */

interface AccountFieldProps {
  value: string;
  onValue(value: string): void;
  error?: string;
  /** The form field's name (what the schema calls it), when not the usual one. */
  name?: string;
}

export function EmailField({ value, onValue, error, name = 'email' }: AccountFieldProps) {
  return <Field label="Email" required type="email" name={name} autoComplete="email" value={value} onChange={(e) => onValue(e.target.value)} error={error} />;
}

/** A password: the one the person has (`current`), or a new one they choose (`new`). */
export function PasswordField({
  value,
  onValue,
  error,
  name = 'password',
  label = 'Password',
  kind,
}: AccountFieldProps & { label?: string; kind: 'current' | 'new' }) {
  return (
    <Field
      label={label}
      required
      type="password"
      name={name}
      autoComplete={kind === 'current' ? 'current-password' : 'new-password'}
      value={value}
      onChange={(e) => onValue(e.target.value)}
      error={error}
    />
  );
}

export function UsernameField({ value, onValue, error, name = 'username' }: AccountFieldProps) {
  return (
    <Field
      label="Username"
      hint="optional"
      name={name}
      autoComplete="username"
      autoCapitalize="none"
      spellCheck={false}
      value={value}
      onChange={(e) => onValue(e.target.value)}
      error={error}
    />
  );
}

export function PhoneField({ value, onValue, error, name = 'phone' }: AccountFieldProps) {
  return (
    <Field label="Phone" hint="optional" type="tel" name={name} autoComplete="tel" value={value} onChange={(e) => onValue(e.target.value)} error={error} />
  );
}
