import { DERIVED } from './core-schemas/derived.js'
import { ENRICHMENT_CONFIGS } from './core-schemas/enrichment-configs.js'
import { LOOKUP_CONFIGS } from './core-schemas/lookup-configs.js'
import { ENTITIES } from './core-schemas/entities.js'
import { ENVELOPES } from './core-schemas/envelopes.js'

/**
 * Floe's own copies of the core Iglu schemas, so that events validate offline: written for Floe,
 * each accepting and refusing exactly what Iglu Central's schema of the same URI does (the full
 * test tier proves it against Iglu Central's files). They are the resolver's last resort: every
 * repository the user configures is asked first.
 */
export const CORE_SCHEMAS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ...ENVELOPES,
  ...ENTITIES,
  ...DERIVED,
  ...ENRICHMENT_CONFIGS,
  ...LOOKUP_CONFIGS,
])
