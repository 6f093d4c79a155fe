import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError, unknownFlagEnrichment, type FlagEnrichment } from '../config/index.js'
import { localAssetPath } from './enrichment-assets.js'
import { openIpLookupDatabases, type IpLookupDatabase } from './maxmind-databases.js'
import {
  createAnonymizeIpStep,
  type AnonymizeIpConfig,
} from './pipeline/enrichments/anonymize-ip.js'
import {
  createCampaignAttributionStep,
  type CampaignAttributionConfig,
} from './pipeline/enrichments/campaign-attribution.js'
import type { Enrichments, JavascriptEnrichment } from './pipeline/enrichments/enrichments.js'
import {
  createEventFingerprintStep,
  type EventFingerprintConfig,
} from './pipeline/enrichments/event-fingerprint.js'
import {
  createCookieExtractorStep,
  createHeaderExtractorStep,
} from './pipeline/enrichments/extract-headers.js'
import { createIpLookupsStep } from './pipeline/enrichments/ip-lookups.js'
import { createRefererParserStep } from './pipeline/enrichments/referer-parser.js'
import { createUaParserStep } from './pipeline/enrichments/ua-parser.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import { loadUaParserRules } from './ua-parser-database.js'
import { isJsonObject } from '../shared/index.js'

const SP = 'com.snowplowanalytics.snowplow'
const CONFIG_SCHEMA =
  /^iglu:(com\.snowplowanalytics\.snowplow(?:\.enrichments)?)\/([a-z_]+)\/jsonschema\/(\d+)-\d+-\d+$/
const IP_LOOKUP_DATABASES: readonly IpLookupDatabase[] = [
  'geo',
  'isp',
  'domain',
  'connectionType',
  'asn',
]

interface BuildContext {
  /** The configuration's schema URI. */
  readonly schema: string
  /** Where relative asset locations start: the enrichments directory. */
  readonly directory: string
  /** Start-up notes to log, such as skipped rules. */
  readonly warnings: string[]
  /** Where the configuration came from: names a script's runtime. */
  readonly where: string
  /** Runs JavaScript enrichment scripts (in a sandbox). */
  readonly runScript: JavascriptEnrichment['run']
}

type Builder = (
  parameters: Record<string, unknown>,
  context: BuildContext,
) => Partial<Enrichments> | Promise<Partial<Enrichments>>

/** A script as Enrich reads it from its configuration: base64 (either alphabet), UTF-8, not empty. */
function decodedScript(encoded: unknown): string {
  if (typeof encoded !== 'string' || !/^[A-Za-z0-9+/_=\s-]*$/.test(encoded))
    throw new Error('Could not base64 decode: parameters.script is not base64')
  const source = Buffer.from(encoded, 'base64').toString('utf8')
  if (source.trim() === '') throw new Error('Provided script for JS enrichment is empty')
  return source
}

/** Each supported configuration (by schema name) and how its parameters become a step. */
const BUILDERS: Readonly<Record<string, Builder>> = {
  javascript_script_config: (p, { schema, where, runScript }) => ({
    javascript: [
      {
        schemaKey: schema,
        script: {
          id: where,
          source: decodedScript(p.script),
          config: isJsonObject(p.config) ? p.config : {},
        },
        run: runScript,
      },
    ],
  }),
  campaign_attribution: (p) => ({
    campaignAttribution: createCampaignAttributionStep(
      (isJsonObject(p.fields) ? p.fields : p) as unknown as CampaignAttributionConfig,
    ),
  }),
  referer_parser: (p) => ({
    refererParser: createRefererParserStep({
      internalDomains: Array.isArray(p.internalDomains) ? p.internalDomains.map(String) : [],
    }),
  }),
  event_fingerprint_config: (p) => ({
    eventFingerprint: createEventFingerprintStep(p as unknown as EventFingerprintConfig),
  }),
  anon_ip: (p) => ({ anonymizeIp: createAnonymizeIpStep(p as unknown as AnonymizeIpConfig) }),
  cookie_extractor_config: (p) => ({
    cookieExtractor: createCookieExtractorStep({
      cookies: Array.isArray(p.cookies) ? p.cookies.map(String) : [],
    }),
  }),
  http_header_extractor_config: (p) => ({
    headerExtractor: createHeaderExtractorStep({ headersPattern: String(p.headersPattern) }),
  }),
  // Without database and uri: the uap-core rules installed with Floe.
  ua_parser_config: async (p, { schema, directory, warnings }) => {
    const file =
      typeof p.database === 'string' && typeof p.uri === 'string'
        ? localAssetPath(p.uri, p.database, directory)
        : undefined
    const { rules, skipped } = await loadUaParserRules(file)
    if (skipped.length > 0)
      warnings.push(
        `ua_parser_config: skipped ${skipped.length} rules JavaScript cannot compile: ${skipped.map((s) => `${s.list}[${s.index}] (${s.error})`).join('; ')}`,
      )
    return { uaParser: createUaParserStep({ rules, schemaKey: schema }) }
  },
  ip_lookups: async (p, { schema, directory }) => {
    if (/\/jsonschema\/1-/.test(schema))
      throw new Error(
        'ip_lookups 1-0-x uses legacy GeoIP .dat files, which Floe cannot read; use ip_lookups 2-0-x with .mmdb files',
      )
    const files: Partial<Record<IpLookupDatabase, string>> = {}
    for (const kind of IP_LOOKUP_DATABASES) {
      const entry = p[kind]
      if (isJsonObject(entry))
        files[kind] = localAssetPath(String(entry.uri), String(entry.database), directory)
    }
    if (Object.keys(files).length === 0)
      throw new Error(`ip_lookups needs at least one database (${IP_LOOKUP_DATABASES.join(', ')})`)
    return { ipLookups: createIpLookupsStep(await openIpLookupDatabases(files)) }
  },
}

/** What `--enrich <name>` switches on: each enrichment with a typical configuration. */
const FLAG_DEFAULTS: Readonly<
  Record<FlagEnrichment, { readonly schema: string; readonly parameters: Record<string, unknown> }>
> = {
  campaign_attribution: {
    schema: `iglu:${SP}/campaign_attribution/jsonschema/1-0-1`,
    parameters: {
      mapping: 'static',
      fields: {
        mktMedium: ['utm_medium'],
        mktSource: ['utm_source'],
        mktTerm: ['utm_term'],
        mktContent: ['utm_content'],
        mktCampaign: ['utm_campaign'],
      },
    },
  },
  referer_parser: {
    schema: `iglu:${SP}/referer_parser/jsonschema/2-0-0`,
    parameters: { internalDomains: [] },
  },
  ua_parser_config: { schema: `iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, parameters: {} },
  event_fingerprint_config: {
    schema: `iglu:${SP}/event_fingerprint_config/jsonschema/1-0-1`,
    parameters: { excludeParameters: ['cv', 'eid', 'nuid', 'stm'], hashAlgorithm: 'MD5' },
  },
  anon_ip: { schema: `iglu:${SP}/anon_ip/jsonschema/1-0-1`, parameters: { anonOctets: 1 } },
}

/** Enrichments to enable from a directory of Snowplow configuration files and from flags. */
export interface EnrichmentSources {
  /** A directory of configuration files (`*.json`), or null. */
  readonly directory: string | null
  /** `--enrich` names, each enabled with its typical configuration unless the directory configures it. */
  readonly enable: readonly string[]
  /** `--geo-db`: a GeoIP2/GeoLite2 City file for ip_lookups, unless the directory configures ip_lookups. */
  readonly geoDatabase: string | null
}

/** The configurations of a directory: `[where, name, schema, data]` for each readable, supported one. */
function readDirectory(
  directory: string,
  problems: string[],
): [string, string, string, Record<string, unknown>][] {
  let files: string[]
  try {
    files = readdirSync(directory)
      .filter((f) => f.endsWith('.json') || f.endsWith('.js'))
      .sort()
  } catch (error) {
    throw new ConfigError([
      `--enrichments ${directory}: ${error instanceof Error ? error.message : String(error)}`,
    ])
  }
  return files.flatMap((file): [string, string, string, Record<string, unknown>][] => {
    const where = path.join(directory, file)
    let config: unknown
    try {
      // A script file is a javascript_script_config of its own (as in Micro), with no config.
      config = file.endsWith('.js')
        ? {
            schema: `iglu:${SP}/javascript_script_config/jsonschema/1-0-0`,
            data: {
              vendor: SP,
              name: 'javascript_script_config',
              enabled: true,
              parameters: { script: readFileSync(where).toString('base64') },
            },
          }
        : JSON.parse(readFileSync(where, 'utf8'))
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
      return []
    }
    const match =
      isJsonObject(config) && typeof config.schema === 'string'
        ? CONFIG_SCHEMA.exec(config.schema)
        : null
    if (!isJsonObject(config) || match === null || !isJsonObject(config.data)) {
      problems.push(
        `${where}: expected {"schema": "iglu:com.snowplowanalytics.snowplow/<enrichment>/jsonschema/M-R-A", "data": {...}}`,
      )
      return []
    }
    const name = match[2] ?? ''
    if (!Object.hasOwn(BUILDERS, name)) {
      problems.push(
        `${where}: the ${name} enrichment is not supported by Floe (supported: ${Object.keys(BUILDERS).join(', ')})`,
      )
      return []
    }
    return [[where, name, config.schema as string, config.data]]
  })
}

/**
 * The enrichments of a directory of Snowplow enrichment configuration files (and `*.js` scripts), each validated against
 * its schema through the resolver, then those enabled by flags with their typical configuration.
 * Disabled ones are skipped; unsupported, invalid or unreadable ones stop start-up with every
 * problem listed.
 */
export async function loadEnrichments(
  sources: EnrichmentSources,
  iglu: IgluValidation,
  deps: { readonly runScript: JavascriptEnrichment['run'] },
): Promise<{ enrichments: Enrichments; enabled: string[]; warnings: string[] }> {
  const problems: string[] = []
  const warnings: string[] = []
  let enrichments: Enrichments = {}
  const enabled: string[] = []
  const configured = new Set<string>()
  const build = async (
    where: string,
    name: string,
    schema: string,
    parameters: Record<string, unknown>,
    directory: string,
  ) => {
    try {
      const built = await BUILDERS[name]?.(parameters, {
        schema,
        directory,
        warnings,
        where,
        runScript: deps.runScript,
      })
      // Every script runs, in the order configured; another enrichment configured twice keeps the last.
      const javascript = [...(enrichments.javascript ?? []), ...(built?.javascript ?? [])]
      enrichments = {
        ...enrichments,
        ...built,
        ...(javascript.length === 0 ? {} : { javascript }),
      }
      enabled.push(name)
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  for (const [where, name, schema, data] of sources.directory === null
    ? []
    : readDirectory(sources.directory, problems)) {
    configured.add(name)
    const verdict = await iglu.validate(schema, data)
    if (verdict.kind === 'invalid')
      problems.push(
        `${where}: invalid against ${schema}: ${JSON.stringify(verdict.error).slice(0, 500)}`,
      )
    else if (data.enabled !== false)
      await build(
        where,
        name,
        schema,
        isJsonObject(data.parameters) ? data.parameters : {},
        sources.directory ?? '.',
      )
  }
  for (const name of new Set(sources.enable)) {
    // loadConfig refuses unknown names first; a configuration built in code is checked here.
    const defaults = Object.hasOwn(FLAG_DEFAULTS, name)
      ? FLAG_DEFAULTS[name as FlagEnrichment]
      : undefined
    if (defaults === undefined) problems.push(unknownFlagEnrichment(name))
    else if (configured.has(name))
      warnings.push(`--enrich ${name}: the enrichments directory configures it, and wins`)
    else await build(`--enrich ${name}`, name, defaults.schema, defaults.parameters, process.cwd())
  }
  if (sources.geoDatabase !== null) {
    const geo = {
      database: path.basename(sources.geoDatabase),
      uri: pathToFileURL(path.dirname(path.resolve(sources.geoDatabase))).href,
    }
    if (configured.has('ip_lookups'))
      warnings.push('--geo-db: the enrichments directory configures ip_lookups, and wins')
    else
      await build(
        `--geo-db ${sources.geoDatabase}`,
        'ip_lookups',
        `iglu:${SP}/ip_lookups/jsonschema/2-0-1`,
        { geo },
        process.cwd(),
      )
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return { enrichments, enabled, warnings }
}
