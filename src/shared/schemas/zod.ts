import { z } from 'zod';

// In a browser, zod's faster parsers would be compiled with `new Function`, which the app's CSP
// forbids (no 'unsafe-eval'): zod would probe for it and the browser report a violation. Every
// schema module takes `z` from here, so this runs before any schema exists on the page, and zod
// stays out of the first page's script (the pages load the schemas when first used). The server
// keeps zod's compiled parsers.
if (typeof document !== 'undefined') z.config({ jitless: true });

export { z };
