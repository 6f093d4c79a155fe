import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { ConfigError } from '../config.js'
import { localAssetPath } from './enrichment-assets.js'
import { openIpLookupDatabases, type IpLookupDatabase } from './maxmind-databases.js'
import { createAnonymizeIpStep, type AnonymizeIpConfig } from './pipeline/enrichments/anonymize-ip.js'
import { createCampaignAttributionStep, type CampaignAttributionConfig } from './pipeline/enrichments/campaign-attribution.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import { createEventFingerprintStep, type EventFingerprintConfig } from './pipeline/enrichments/event-fingerprint.js'
import { createCookieExtractorStep, createHeaderExtractorStep } from './pipeline/enrichments/extract-headers.js'
import { createIpLookupsStep } from './pipeline/enrichments/ip-lookups.js'
import { createRefererParserStep } from './pipeline/enrichments/referer-parser.js'
import { createUaParserStep } from './pipeline/enrichments/ua-parser.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import { loadUaParserRules } from './ua-parser-database.js'

const CONFIG_SCHEMA = /^iglu:(com\.snowplowanalytics\.snowplow(?:\.enrichments)?)\/([a-z_]+)\/jsonschema\/(\d+)-\d+-\d+$/
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const IP_LOOKUP_DATABASES: readonly IpLookupDatabase[] = ['geo', 'isp', 'domain', 'connectionType', 'asn']

interface BuildContext {
  /** The configuration's schema URI. */
  readonly schema: string
  /** Where relative asset locations start: the enrichments directory. */
  readonly directory: string
  /** Start-up notes to log, such as skipped rules. */
  readonly warnings: string[]
}

type Builder = (parameters: Record<string, unknown>, context: BuildContext) => Partial<Enrichments> | Promise<Partial<Enrichments>>

/** Each supported configuration (by schema name) and how its parameters become a step. */
const BUILDERS: Readonly<Record<string, Builder>> = {
  campaign_attribution: (p) => ({ campaignAttribution: createCampaignAttributionStep((isObject(p.fields) ? p.fields : p) as unknown as CampaignAttributionConfig) }),
  referer_parser: (p) => ({ refererParser: createRefererParserStep({ internalDomains: Array.isArray(p.internalDomains) ? p.internalDomains.map(String) : [] }) }),
  event_fingerprint_config: (p) => ({ eventFingerprint: createEventFingerprintStep(p as unknown as EventFingerprintConfig) }),
  anon_ip: (p) => ({ anonymizeIp: createAnonymizeIpStep(p as unknown as AnonymizeIpConfig) }),
  cookie_extractor_config: (p) => ({ cookieExtractor: createCookieExtractorStep({ cookies: Array.isArray(p.cookies) ? p.cookies.map(String) : [] }) }),
  http_header_extractor_config: (p) => ({ headerExtractor: createHeaderExtractorStep({ headersPattern: String(p.headersPattern) }) }),
  // Without database and uri: the uap-core rules installed with Floe.
  ua_parser_config: (p, { schema, directory, warnings }) => {
    const file = typeof p.database === 'string' && typeof p.uri === 'string' ? localAssetPath(p.uri, p.database, directory) : undefined
    const { rules, skipped } = loadUaParserRules(file)
    if (skipped.length > 0) warnings.push(`ua_parser_config: skipped ${skipped.length} rules JavaScript cannot compile: ${skipped.map((s) => `${s.list}[${s.index}] (${s.error})`).join('; ')}`)
    return { uaParser: createUaParserStep({ rules, schemaKey: schema }) }
  },
  ip_lookups: async (p, { schema, directory }) => {
    if (/\/jsonschema\/1-/.test(schema)) throw new Error('ip_lookups 1-0-x uses legacy GeoIP .dat files, which Floe cannot read; use ip_lookups 2-0-x with .mmdb files')
    const files: Partial<Record<IpLookupDatabase, string>> = {}
    for (const kind of IP_LOOKUP_DATABASES) {
      const entry = p[kind]
      if (isObject(entry)) files[kind] = localAssetPath(String(entry.uri), String(entry.database), directory)
    }
    if (Object.keys(files).length === 0) throw new Error(`ip_lookups needs at least one database (${IP_LOOKUP_DATABASES.join(', ')})`)
    return { ipLookups: createIpLookupsStep(await openIpLookupDatabases(files)) }
  },
}

/** The configurations of a directory: `[where, name, schema, data]` for each readable, supported one. */
function readDirectory(directory: string, problems: string[]): [string, string, string, Record<string, unknown>][] {
  let files: string[]
  try {
    files = readdirSync(directory).filter((f) => f.endsWith('.json')).sort()
  } catch (error) {
    throw new ConfigError([`--enrichments ${directory}: ${error instanceof Error ? error.message : String(error)}`])
  }
  return files.flatMap((file): [string, string, string, Record<string, unknown>][] => {
    const where = path.join(directory, file)
    let config: unknown
    try {
      config = JSON.parse(readFileSync(where, 'utf8'))
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
      return []
    }
    const match = isObject(config) && typeof config.schema === 'string' ? CONFIG_SCHEMA.exec(config.schema) : null
    if (!isObject(config) || match === null || !isObject(config.data)) {
      problems.push(`${where}: expected {"schema": "iglu:com.snowplowanalytics.snowplow/<enrichment>/jsonschema/M-R-A", "data": {...}}`)
      return []
    }
    const name = match[2] ?? ''
    if (BUILDERS[name] === undefined) {
      problems.push(`${where}: the ${name} enrichment is not supported by Floe (supported: ${Object.keys(BUILDERS).join(', ')})`)
      return []
    }
    return [[where, name, config.schema as string, config.data]]
  })
}

/**
 * The enrichments of a directory of Snowplow enrichment configuration files (`*.json`), each
 * validated against its schema through the resolver. Disabled ones are skipped; unsupported,
 * invalid or unreadable ones stop start-up with every problem listed.
 */
export async function loadEnrichments(directory: string, iglu: IgluValidation): Promise<{ enrichments: Enrichments; enabled: string[]; warnings: string[] }> {
  const problems: string[] = []
  const warnings: string[] = []
  let enrichments: Enrichments = {}
  const enabled: string[] = []
  for (const [where, name, schema, data] of readDirectory(directory, problems)) {
    const verdict = await iglu.validate(schema, data)
    if (verdict.kind === 'invalid') {
      problems.push(`${where}: invalid against ${schema}: ${JSON.stringify(verdict.error).slice(0, 500)}`)
      continue
    }
    if (data.enabled === false) continue
    try {
      enrichments = { ...enrichments, ...(await BUILDERS[name]?.(isObject(data.parameters) ? data.parameters : {}, { schema, directory, warnings })) }
      enabled.push(name)
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return { enrichments, enabled, warnings }
}
