import { ensureClientBuilt } from '../build-client';

await ensureClientBuilt(true);
