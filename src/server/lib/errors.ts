/** The failures a service may report; each maps to one HTTP status on both doors. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  /** A payment the provider refused (declined card). */
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
} as const;
export type AppErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** Seconds until a rate-limited caller may try again. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const badRequest = (m: string) => new AppError('BAD_REQUEST', m);
export const unauthorized = (m: string) => new AppError('UNAUTHORIZED', m);
export const forbidden = (m: string) => new AppError('FORBIDDEN', m);
export const notFound = (m: string) => new AppError('NOT_FOUND', m);
export const conflict = (m: string) => new AppError('CONFLICT', m);

/** Postgres unique violation on the named constraint (works for postgres.js and PGlite). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    const x = e as { code?: string; constraint_name?: string; constraint?: string; cause?: unknown };
    if (x.code === '23505') return !constraint || x.constraint_name === constraint || x.constraint === constraint;
    e = x.cause;
  }
  return false;
}
