import { buildServer } from '../build-server';

await buildServer();
