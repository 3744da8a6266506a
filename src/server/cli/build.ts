import { ensureClientBuilt } from '../build-client';
import { buildServer } from '../build-server';

// `npm run build`: the server (dist/server) and the client (dist/client), both from scratch
await buildServer();
await ensureClientBuilt(true);
