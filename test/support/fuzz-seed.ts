import fc from 'fast-check'

// Test infrastructure, not the app: reads the environment for the seed. The same in both tiers (the
// tier's volumes are in fuzz-settings.ts), so a file that only needs the seed runs alike in both.

/** The seed of every property and fuzz test: fixed, so a run can be repeated; FLOE_FUZZ_SEED picks another. */
export const FUZZ_SEED = Number(process.env.FLOE_FUZZ_SEED ?? 20261125)

/** Every fast-check property of the file runs with the fixed seed unless it names its own. */
export function configureFuzzSeed(): void {
  fc.configureGlobal({ seed: FUZZ_SEED })
}
