import type { EnrichmentMessage } from '../steps/enrich-urls.js'

/** One enrichment_failures message: the enrichment that failed (null for the default steps) and what went wrong. */
export interface EnrichmentFailure {
  readonly enrichment: { readonly schemaKey: string; readonly identifier: string } | null
  readonly message: EnrichmentMessage
}
