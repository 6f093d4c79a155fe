import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { ConfigError } from '../config.js'
import { createAnonymizeIpStep, type AnonymizeIpConfig } from './pipeline/enrichments/anonymize-ip.js'
import { createCampaignAttributionStep, type CampaignAttributionConfig } from './pipeline/enrichments/campaign-attribution.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import { createEventFingerprintStep, type EventFingerprintConfig } from './pipeline/enrichments/event-fingerprint.js'
import { createCookieExtractorStep, createHeaderExtractorStep } from './pipeline/enrichments/extract-headers.js'
import { createRefererParserStep } from './pipeline/enrichments/referer-parser.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'

const CONFIG_SCHEMA = /^iglu:(com\.snowplowanalytics\.snowplow(?:\.enrichments)?)\/([a-z_]+)\/jsonschema\/\d+-\d+-\d+$/
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

type Builder = (parameters: Record<string, unknown>) => Partial<Enrichments>

/** Each supported configuration (by schema name) and how its parameters become a step. */
const BUILDERS: Readonly<Record<string, Builder>> = {
  campaign_attribution: (p) => ({ campaignAttribution: createCampaignAttributionStep((isObject(p.fields) ? p.fields : p) as unknown as CampaignAttributionConfig) }),
  referer_parser: (p) => ({ refererParser: createRefererParserStep({ internalDomains: Array.isArray(p.internalDomains) ? p.internalDomains.map(String) : [] }) }),
  event_fingerprint_config: (p) => ({ eventFingerprint: createEventFingerprintStep(p as unknown as EventFingerprintConfig) }),
  anon_ip: (p) => ({ anonymizeIp: createAnonymizeIpStep(p as unknown as AnonymizeIpConfig) }),
  cookie_extractor_config: (p) => ({ cookieExtractor: createCookieExtractorStep({ cookies: Array.isArray(p.cookies) ? p.cookies.map(String) : [] }) }),
  http_header_extractor_config: (p) => ({ headerExtractor: createHeaderExtractorStep({ headersPattern: String(p.headersPattern) }) }),
}

/**
 * The enrichments of a directory of Snowplow enrichment configuration files (`*.json`), each
 * validated against its schema through the resolver. Disabled ones are skipped; unsupported,
 * invalid or unreadable ones stop start-up with every problem listed.
 */
export async function loadEnrichments(directory: string, iglu: IgluValidation): Promise<{ enrichments: Enrichments; enabled: string[] }> {
  const problems: string[] = []
  let enrichments: Enrichments = {}
  const enabled: string[] = []
  let files: string[]
  try {
    files = readdirSync(directory).filter((f) => f.endsWith('.json')).sort()
  } catch (error) {
    throw new ConfigError([`--enrichments ${directory}: ${error instanceof Error ? error.message : String(error)}`])
  }
  for (const file of files) {
    const where = path.join(directory, file)
    let config: unknown
    try {
      config = JSON.parse(readFileSync(where, 'utf8'))
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
      continue
    }
    const match = isObject(config) && typeof config.schema === 'string' ? CONFIG_SCHEMA.exec(config.schema) : null
    if (!isObject(config) || match === null || !isObject(config.data)) {
      problems.push(`${where}: expected {"schema": "iglu:com.snowplowanalytics.snowplow/<enrichment>/jsonschema/M-R-A", "data": {...}}`)
      continue
    }
    const name = match[2] ?? ''
    const builder = BUILDERS[name]
    if (builder === undefined) {
      problems.push(`${where}: the ${name} enrichment is not supported by Floe (supported: ${Object.keys(BUILDERS).join(', ')})`)
      continue
    }
    const verdict = await iglu.validate(config.schema as string, config.data)
    if (verdict.kind === 'invalid') {
      problems.push(`${where}: invalid against ${String(config.schema)}: ${JSON.stringify(verdict.error).slice(0, 500)}`)
      continue
    }
    if (config.data.enabled === false) continue
    try {
      enrichments = { ...enrichments, ...builder(isObject(config.data.parameters) ? config.data.parameters : {}) }
      enabled.push(name)
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return { enrichments, enabled }
}
