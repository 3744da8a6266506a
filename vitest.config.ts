import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CONDITION_WAIT_MS, HANG_GUARD_MS } from './test/limits.ts';

/**
 * Files known to take longest, longest first, across the three lanes (as measured on a quiet
 * 2-core machine, seconds in the comments). `npm test` runs the lanes in one Vitest run, one pool
 * of two workers: each worker takes the longest file left whenever it is free, so the short
 * server files at the end keep both workers busy until everything is done, and no lane waits for
 * another's last file. Vitest starts the files it has no timings for (a fresh clone, as in CI)
 * largest first, which put a long browser file (the axe pass, about a minute per role) last,
 * alone; files not named here go after the named ones, browser files first, then heavy, then server.
 */
const LONGEST_FIRST = [
  // seconds of each file in a run of `npm test` on a 2-core machine (2026-11-27, all lanes at once;
  // from its first test to its last, so a file's beforeAll is not in it)
  'src/server/http/fuzz.heavy.test.ts', // 63
  'e2e/discover.e2e.ts', // 31
  'e2e/phones.e2e.ts', // 25
  'e2e/a11y-owner.e2e.ts', // 22
  'e2e/a11y-admin.e2e.ts', // 22
  'src/server/db/backup.heavy.test.ts', // 22
  'e2e/screens.e2e.ts', // 19
  'src/server/compiled-start.heavy.test.ts', // 19
  'e2e/community.e2e.ts', // 19
  'e2e/a11y-visitor.e2e.ts', // 18
  'e2e/preview-circle.e2e.ts', // 17
  'e2e/campaign-edit.e2e.ts', // 16
  'e2e/teams.e2e.ts', // 14
  'e2e/keyboard.e2e.ts', // 13
  'src/server/jobs/release-processes.heavy.test.ts', // 11
  // two whose beforeAll is most of their time: a standby made with initdb and pg_basebackup, and
  // two app processes with an S3 server (about 7 and 6 s from start to end, each run alone)
  'src/server/db/replica.heavy.test.ts',
  'src/server/instances.heavy.test.ts',
  'e2e/donations.e2e.ts', // 11
  'src/server/http/health.test.ts', // 10
  'src/server/modules/campaigns/list.property.test.ts', // 10
  'e2e/chargebacks.e2e.ts', // 9
  'e2e/payouts.e2e.ts', // 9
  'e2e/comments.e2e.ts', // 9
  'src/server/db/data-dir-lock.test.ts', // 9
  'e2e/auth.e2e.ts', // 9
  'e2e/admin.e2e.ts', // 9
  'e2e/campaigns.e2e.ts', // 8
  'src/server/drain.heavy.test.ts', // 8
  'src/server/modules/teams/teams.property.test.ts', // 8
  'e2e/projects.e2e.ts', // 7
  'e2e/supports.e2e.ts', // 6
  'e2e/dashboard.e2e.ts', // 6
  'src/server/modules/uploads/uploads.test.ts', // 6
  'src/server/storage/s3.test.ts', // 5
  'e2e/campaign-page.e2e.ts', // 5
  'src/server/db/pgbouncer.heavy.test.ts', // 5
  'src/server/modules/teams/teams.test.ts', // 5
  'e2e/updates.e2e.ts', // 5
  'src/server/modules/auth/auth.test.ts', // 5
  'src/server/modules/campaigns/page-marks.property.test.ts', // 5
  'e2e/api-docs.e2e.ts', // 4
  'e2e/delivery.e2e.ts', // 4
  'e2e/nothing-lost.e2e.ts', // 4
  'src/server/db/migrate-once.heavy.test.ts', // 4
  'src/server/modules/donations/money-edges.test.ts', // 4
  'src/server/http/startup.test.ts', // 4
  'src/server/modules/previews/previews.test.ts', // 3
  'src/server/modules/previews/visibility-matrix.test.ts', // 3
  'e2e/home.e2e.ts', // 3
  'src/server/auth/login-throttle.test.ts', // 3
  'src/server/modules/teams/paging.test.ts', // 3
  'e2e/drafts.e2e.ts', // 3
  'src/server/modules/campaigns/campaigns.test.ts', // 3
];

/** Lanes in the order their unnamed files start: a browser file is likely longer than a heavy one. */
const LANE_ORDER = ['e2e', 'heavy', 'server'];

/** Vitest's order, with the files of LONGEST_FIRST moved to the front, then the rest by lane. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((suffix) => f.moduleId.endsWith(suffix));
      if (i >= 0) return i;
      const lane = LANE_ORDER.indexOf(f.project.name);
      return LONGEST_FIRST.length + (lane < 0 ? LANE_ORDER.length : lane);
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

// Limits only stop a hung test; no test depends on the machine's speed (test/limits.ts).

/** Heavy files: property tests (hundreds of generated sequences) and the demo seed. */
const HEAVY = ['src/**/*.property.test.ts', 'src/**/*.heavy.test.ts'];

// Three lanes over one database choice (test/global-setup.ts), run together by `npm test` in one
// pool of two workers (files longest first, above), or one at a time (`npm run test:server` ...):
//   server: app.inject against a real database, one database per file;
//   heavy:  the same, for the files above (hundreds of generated cases each);
//   e2e:    a real server per file on its own database, driven through Debian's Chromium.
// Files share their worker's modules (`isolate: false`): a file's own state is its database,
// its app (and its Chromium), all made and closed by the file; importing the app's modules afresh
// for each file was half the server lane's time (about 1 s of CPU a file, in every lane).
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
          isolate: false,
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'heavy',
          environment: 'node',
          include: HEAVY,
          isolate: false,
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
          // two files at once: each drives its own server and Chromium, which keep both cores
          // busy (Chromium's processes take about two thirds of the lane's CPU time)
          isolate: false,
          maxWorkers: 2,
        },
      },
    ],
  },
});
