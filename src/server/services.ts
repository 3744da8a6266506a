import type { Deps } from './deps';
import { createAuthService } from './modules/auth/service';

/** Every domain service, built once per app over the same dependencies. */
export function createServices(deps: Deps) {
  return {
    auth: createAuthService(deps),
  };
}
export type Services = ReturnType<typeof createServices>;
