import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CONDITION_WAIT_MS, HANG_GUARD_MS } from './test/limits';

/**
 * Files known to take longest in their lane, longest first. Vitest starts the files it has no
 * timings for (a fresh clone, as in CI) largest first, and the axe pass is a small file that
 * runs for about a minute per role: started last, it ran alone at the end while the other worker
 * sat idle. With every browser file here, longest first (as measured on a 2-core machine), each
 * worker takes the longest file left whenever it is free, and the short ones at the end keep both
 * workers busy until the lane is done.
 */
const LONGEST_FIRST = [
  'e2e/community.e2e.ts',
  'e2e/keyboard.e2e.ts',
  'e2e/teams.e2e.ts',
  'e2e/campaign-edit.e2e.ts',
  'e2e/a11y-owner.e2e.ts',
  'e2e/a11y-visitor.e2e.ts',
  'e2e/a11y-admin.e2e.ts',
  'e2e/screens.e2e.ts',
  'e2e/comments.e2e.ts',
  'e2e/admin.e2e.ts',
  'e2e/auth.e2e.ts',
  'e2e/donations.e2e.ts',
  'e2e/chargebacks.e2e.ts',
  'e2e/payouts.e2e.ts',
  'e2e/supports.e2e.ts',
  'e2e/projects.e2e.ts',
  'e2e/campaigns.e2e.ts',
  'e2e/discover.e2e.ts',
  'e2e/delivery.e2e.ts',
  'e2e/home.e2e.ts',
  'e2e/api-docs.e2e.ts',
  'e2e/my-funds.e2e.ts',
];

/** Vitest's order, with each lane's files from LONGEST_FIRST moved to the front of that lane. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const lanes = new Map<string, TestSpecification[]>();
    for (const f of sorted) lanes.set(f.project.name, [...(lanes.get(f.project.name) ?? []), f]);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((suffix) => f.moduleId.endsWith(suffix));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order
    return [...lanes.values()].flatMap((lane) => [...lane].sort((a, b) => rank(a) - rank(b)));
  }
}

// Limits only stop a hung test; no test depends on the machine's speed (test/limits.ts).

/** Heavy files: property tests (hundreds of generated sequences) and the demo seed. */
const HEAVY = ['src/**/*.property.test.ts', 'src/**/*.heavy.test.ts'];

// Three lanes over one database choice (test/global-setup.ts):
//   server: app.inject against a real database, one database per file;
//   heavy:  the same, for the files above, in a lane of their own after the server lane;
//   e2e:    a real server per file on its own database, driven through Debian's Chromium.
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    env: { NODE_ENV: 'test' },
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    teardownTimeout: HANG_GUARD_MS,
    expect: { poll: { timeout: CONDITION_WAIT_MS, interval: 50 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          environment: 'node',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: HEAVY,
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'heavy',
          environment: 'node',
          include: HEAVY,
          maxWorkers: 2,
          testTimeout: 2 * HANG_GUARD_MS,
          hookTimeout: 2 * HANG_GUARD_MS,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.ts'],
          globalSetup: ['./e2e/global-setup.ts'],
          // two files at once: each drives its own server and Chromium, and waits on the network
          // about half the time
          maxWorkers: 2,
        },
      },
    ],
  },
});
