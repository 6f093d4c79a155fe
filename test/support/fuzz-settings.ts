// Test infrastructure, not the app: reads the environment for the tier (the seed is in fuzz-seed.ts).

/** `full` for `npm run test:full` (release volumes); anything else is the fast tier. */
export const isFullTier = process.env.FLOE_TEST_TIER === 'full'

/** Runs of a fuzz test: a smaller volume in the fast tier, the release volume in the full one; `variable` overrides both. */
export function fuzzRuns(fast: number, full: number, variable?: string): number {
  const given = variable === undefined ? undefined : process.env[variable]
  return given !== undefined ? Number(given) : isFullTier ? full : fast
}
