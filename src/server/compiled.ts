/** Set to true by the server's build (build-server.ts, esbuild's `define`); undeclared under tsx. */
declare const KINDLING_COMPILED: boolean | undefined;

/**
 * True in the compiled server (dist/server/main.js, what `npm start` and the container run), false
 * when the TypeScript runs as it is (tsx: `npm run dev`, the tests, the command-line tools).
 */
export const compiled = typeof KINDLING_COMPILED !== 'undefined' && KINDLING_COMPILED === true;
