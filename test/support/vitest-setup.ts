import { configureFuzzSeed } from './fuzz-seed.js'

// Runs before every test file (vitest.config.ts, setupFiles); the seed is printed once per run by
// the global setup (pglite-template.ts).
configureFuzzSeed()
