import fc from 'fast-check'

// Test infrastructure, not the app: reads the environment for the tier and the seed.

/** `full` for `npm run test:full` (release volumes); anything else is the fast tier. */
export const isFullTier = process.env.FLOE_TEST_TIER === 'full'

/** The seed of every property and fuzz test: fixed, so a run can be repeated; FLOE_FUZZ_SEED picks another. */
export const FUZZ_SEED = Number(process.env.FLOE_FUZZ_SEED ?? 20261125)

/** Runs of a fuzz test: a smaller volume in the fast tier, the release volume in the full one; `variable` overrides both. */
export function fuzzRuns(fast: number, full: number, variable?: string): number {
  const given = variable === undefined ? undefined : process.env[variable]
  return given !== undefined ? Number(given) : isFullTier ? full : fast
}

/** Every fast-check property of the file runs with the fixed seed unless it names its own. */
export function configureFuzzSeed(): void {
  fc.configureGlobal({ seed: FUZZ_SEED })
}
