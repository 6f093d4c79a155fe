import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { tierInvariantTestFiles } from './test/support/tier-varying-files.js'

/**
 * The full tier's own tests (`npm run test:full`): end-to-end runs of `floe start`, real trackers
 * and browsers, the CLI and snowtype, the benchmarks' smoke runs, and the Iglu Central and JSON
 * Schema Test Suite corpora. With FLOE_TEST_TIER=full the fast tier's tests also run on PostgreSQL
 * (TEST_DATABASE_URL) and the fuzz tests at release volume.
 */
const FULL_TIER_ONLY = [
  'test/**/*.e2e.test.ts',
  'test/**/*.postgres.test.ts',
  // Slow sockets and answers of many megabytes: volume, kept out of the fast tier's 4 minutes.
  'test/large-answers.http.test.ts',
  'test/connections.http.test.ts',
  'test/bench-smoke.test.ts',
  'test/iglu-central.http.test.ts',
  'test/compatibility-corpora.test.ts',
  'test/core-schemas-differential.test.ts',
  // The embedded cluster's failures and its template's copies, at ~10–12 s each: what a crash, a
  // full disk or an interrupted first start leaves (the end-to-end crash and kill tests' kin).
  'src/db/backend-loss.test.ts',
  'src/db/pglite-template.test.ts',
  // Run by the full tier anyway, on PGlite and on PostgreSQL (their runs vary with the tier).
  'test/event-storage.http.test.ts',
  'test/compatibility-directed.test.ts',
]

/**
 * Full-tier files that measure the event loop's stalls, run after every other file, one at a time
 * (as ALONE below in the fast tier): beside the browsers and servers of the end-to-end files, a
 * turn of 2–3 ms measured 238 ms in CI once, the main thread waiting for a core.
 */
const FULL_TIER_ALONE = [
  // Tens of thousands of events written to PGlite, to time what walks them.
  'test/pglite-event-store-turns.test.ts',
]

/**
 * Fast-tier files that measure the event loop's stalls: they must not run beside other files,
 * whose work on both cores would be measured with theirs. They run after every other file, one at
 * a time, sharing one worker's loaded modules (in a process each, their imports took ~17 of the
 * 91 s they took together on a slow machine).
 */
const ALONE = [
  'test/hostile-corpus.http.test.ts',
  'test/javascript-enrichment-stall.http.test.ts',
  'test/lookup-enrichment-stall.http.test.ts',
  'test/pii-enrichment-stall.http.test.ts',
  'test/trigger-images.http.test.ts',
  'test/registry-read-turns.http.test.ts',
  'test/tracking-plan-list-turns.http.test.ts',
  'test/events-query-turns.http.test.ts',
  'src/db/pglite-thread.test.ts',
]

/**
 * Fast-tier files that measure the heap: alone as well, and in a process of their own, where no
 * earlier file's late work (a closing store, a timer) can allocate while they count.
 */
const OWN_PROCESS = ['src/inspection/store/event-weight.test.ts']

/**
 * Set by `.ci/run` once `npm test` has passed: the full tier then skips the fast tier's files that
 * would run exactly as they just did (they neither read the tier nor import what does), and runs
 * again only those whose fuzz volume or storage backends change with it. A full run on its own
 * (`npm run test:full` without it) runs every file.
 */
const FAST_TIER_PASSED = process.env.FLOE_FAST_TIER_PASSED === '1'
const RUN_ALIKE_IN_BOTH_TIERS = FAST_TIER_PASSED
  ? tierInvariantTestFiles(fileURLToPath(new URL('.', import.meta.url)), ['src', 'test', 'web/src'])
  : []

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores of the CI machine (vitest's default leaves one free).
    maxWorkers: 2,
    setupFiles: ['test/support/vitest-setup.ts'],
    globalSetup: ['test/support/pglite-template.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          // The fast tier's files share each worker's loaded modules instead of loading every
          // module again per file: 128 s instead of 195 s on the 2-core machine, nearly all of the
          // difference being imports. Floe keeps no module-level state (app.ts builds every
          // instance), so a file cannot see another's.
          isolate: false,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: [
            ...FULL_TIER_ONLY,
            ...FULL_TIER_ALONE,
            ...ALONE,
            ...OWN_PROCESS,
            ...RUN_ALIKE_IN_BOTH_TIERS,
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'fast-alone',
          isolate: false,
          include: ALONE,
          exclude: RUN_ALIKE_IN_BOTH_TIERS,
          // After every other file, one at a time: a stall measured while another test keeps both
          // cores busy (worker threads compiling schemas or walking JSON) measures that test.
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
      {
        extends: true,
        test: {
          name: 'fast-own-process',
          include: OWN_PROCESS,
          exclude: RUN_ALIKE_IN_BOTH_TIERS,
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
        },
      },
      {
        extends: true,
        test: {
          name: 'full',
          include: FULL_TIER_ONLY,
          // A browser page updates on its own clock (the console reloads live events at most once
          // a second): `expect.poll` waits up to 15 s for what the page must come to show.
          expect: { poll: { timeout: 15_000, interval: 50 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'full-alone',
          include: FULL_TIER_ALONE,
          sequence: { groupOrder: 3 },
          maxWorkers: 1,
        },
      },
    ],
  },
})
