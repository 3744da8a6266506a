import { a11yPass } from './a11y-pass';

// axe and the sideways check on every route, for an owner (e2e/a11y-pass.ts)
a11yPass('owner');
