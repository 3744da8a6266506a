import { z } from './zod';
import { PASSWORD_MAX, PASSWORD_MIN, USERNAME_PATTERN } from '../constants';
import { M } from '../messages';
import { text } from './common';
import { UserSchema } from './user';

export const EmailSchema = text({ error: M.emailRequired })
  .trim()
  .toLowerCase()
  .min(1, M.emailRequired)
  .max(254, M.emailInvalid)
  .pipe(z.email({ error: M.emailInvalid }));

/** A new password (registration, reset, change). */
export const NewPasswordSchema = text({ error: M.passwordRequired })
  .min(1, M.passwordRequired)
  .min(PASSWORD_MIN, M.passwordTooShort)
  .max(PASSWORD_MAX, M.passwordTooLong);

/** A password being checked: only presence and an upper bound (never reveal the rules here). */
export const PasswordSchema = text({ error: M.passwordRequired })
  .min(1, M.passwordRequired)
  .max(PASSWORD_MAX * 4);

const emptyToNull = (v: string | null | undefined) => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

export const UsernameSchema = text().trim().toLowerCase().regex(USERNAME_PATTERN, M.usernameInvalid);

export const OptionalUsernameSchema = text().nullish().transform(emptyToNull).pipe(UsernameSchema.nullable());

export const OptionalPhoneSchema = text()
  .nullish()
  .transform(emptyToNull)
  .pipe(
    text()
      .regex(/^\+?[0-9 ()./-]{5,32}$/, M.phoneInvalid)
      .refine((v) => (v.match(/[0-9]/g) ?? []).length >= 5, M.phoneInvalid)
      .nullable(),
  );

export const RegisterInput = z.object({
  email: EmailSchema,
  password: NewPasswordSchema,
  username: OptionalUsernameSchema.optional(),
  phone: OptionalPhoneSchema.optional(),
});
export type RegisterInput = z.input<typeof RegisterInput>;

export const LoginInput = z.object({ email: EmailSchema, password: PasswordSchema });
export type LoginInput = z.input<typeof LoginInput>;

export const LoginOutput = z.object({ token: z.string(), user: UserSchema });

export const ChangePasswordInput = z.object({
  currentPassword: PasswordSchema,
  newPassword: NewPasswordSchema,
});

export const ForgotPasswordInput = z.object({ email: EmailSchema });
export const TokenSchema = text().trim().min(1, M.missingToken).max(200, M.invalidOrExpiredToken);
export const ResetPasswordInput = z.object({ token: TokenSchema, password: NewPasswordSchema });
export const VerifyEmailInput = z.object({ token: TokenSchema });

export const ChangePasswordOutput = z.object({ message: z.string(), token: z.string() });
