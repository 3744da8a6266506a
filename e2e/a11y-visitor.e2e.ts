import { a11yPass } from './a11y-pass';

// axe and the sideways check on every route, for a visitor (e2e/a11y-pass.ts)
a11yPass('visitor');
