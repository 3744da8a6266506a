/**
 * No test here passes or fails by how fast the machine is. Each test's work is bounded by
 * count (fast-check `numRuns` and generator sizes, fixed numbers of rows and requests), and
 * every wait in a test waits for a condition, not for a time. The limits below exist only to
 * stop a test that hangs (a deadlock, a promise never settled): they are far above what any
 * test needs on a loaded 2-core machine, so reaching one is a bug to fix, never slowness.
 * Speed is measured by `npm run bench`, not by tests.
 */
export const HANG_GUARD_MS = 10 * 60_000;

/** How long a browser test waits for a condition (Playwright actions, `expect.poll`). */
export const CONDITION_WAIT_MS = 60_000;
