import { configureFuzzSeed, FUZZ_SEED } from './fuzz-settings.js'

// Runs before every test file (vitest.config.ts, setupFiles).
configureFuzzSeed()
if (process.env.FLOE_FUZZ_SEED !== undefined)
  console.info(`fuzz seed ${FUZZ_SEED} (FLOE_FUZZ_SEED)`)
