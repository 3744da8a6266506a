import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../server/trpc/router';

/** True when the error came back from our server as a formatted tRPC error (not a network failure). */
function isServerError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError && err.data != null && typeof err.message === 'string' && err.message !== '';
}

/**
 * The text to show for a failed call (spec section 8): the server's message, else the spec's
 * default. Network failures and unreadable answers have no server message, so they get the fallback.
 */
export function errorMessage(err: unknown, fallback: string): string {
  return isServerError(err) ? err.message : fallback;
}

/** The HTTP status of a failed tRPC call, if the server answered. */
export function httpStatus(err: unknown): number | undefined {
  if (!(err instanceof TRPCClientError)) return undefined;
  const status = (err.data as { httpStatus?: unknown } | undefined)?.httpStatus;
  return typeof status === 'number' ? status : undefined;
}

/** The tRPC error code (e.g. 'UNAUTHORIZED', 'NOT_FOUND') of a failed call, if the server answered. */
export function errorCode(err: unknown): string | undefined {
  if (!(err instanceof TRPCClientError)) return undefined;
  const code = (err.data as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isClientError(err: unknown): boolean {
  const s = httpStatus(err);
  return s !== undefined && s >= 400 && s < 500;
}

/** 401 or 403: the session is gone or not allowed. */
export function isAuthError(err: unknown): boolean {
  const s = httpStatus(err);
  return s === 401 || s === 403;
}
