import { inject } from 'vitest'
import type { DatabaseConfig } from '../../src/config/config.js'
import { bareClusterLease, leaseCluster, templateImage } from './pglite-template.js'

/**
 * An in-memory PGlite store, from the run's migrated template (see pglite-template.ts) when vitest
 * provides it. Apart from test-databases.ts: whether a test runs on PostgreSQL too depends on the
 * tier, and a file that only needs PGlite does not (see tier-varying-files.ts).
 */
export function inMemoryPglite(): DatabaseConfig {
  const template = inject('pgliteTemplate')
  return {
    kind: 'pglite',
    dataDir: null,
    ...(template === undefined ? {} : { lease: () => leaseCluster(templateImage(template)) }),
  }
}

/**
 * An in-memory PGlite store of no migration (as initdb leaves a cluster), from the run's dump of
 * one when vitest provides it.
 */
export function unmigratedPglite(): DatabaseConfig {
  const bareFile = inject('pgliteBareCluster')
  return {
    kind: 'pglite',
    dataDir: null,
    ...(bareFile === undefined ? {} : { lease: () => bareClusterLease(bareFile) }),
  }
}
