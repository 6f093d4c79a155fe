import { expect } from 'vitest'
import {
  parsePiiConfig,
  type PiiConfig,
} from '../../src/inspection/pipeline/enrichments/pii-config.js'

export const PII_SCHEMA =
  'iglu:com.snowplowanalytics.snowplow.enrichments/pii_enrichment_config/jsonschema/2-0-1'

/** A PII enrichment's configuration that pseudonymizes `pii` with SHA-256 and `salt`, checked to parse. */
export function piiConfig(
  pii: unknown[],
  salt: string,
  over: Record<string, unknown> = {},
): PiiConfig {
  const problems: string[] = []
  const parsed = parsePiiConfig(
    PII_SCHEMA,
    {
      vendor: 'com.snowplowanalytics.snowplow.enrichments',
      name: 'pii_enrichment_config',
      enabled: true,
      emitEvent: false,
      parameters: { pii, strategy: { pseudonymize: { hashFunction: 'SHA-256', salt } } },
      ...over,
    },
    problems,
  )
  expect(problems).toEqual([])
  return parsed!
}
