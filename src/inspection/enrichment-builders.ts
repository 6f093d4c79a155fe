/**
 * How each supported enrichment configuration becomes a step of the chain, and the typical
 * configuration `--enrich <name>` switches on. Reading the files is enrichment-configs.ts's.
 */
import type { FlagEnrichment } from '../config/index.js'
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
import { loadUaParserRules } from './ua-parser-database.js'
import { isJsonObject } from '../shared/index.js'
import { createSqlQueryStep, parseSqlQueryConfig } from './pipeline/enrichments/sql-query.js'
import { createApiRequestStep, parseApiRequestConfig } from './pipeline/enrichments/api-request.js'
import { openSqlDatabase, type SqlDatabaseSettings } from './lookups/sql-database.js'
import { sendApiRequest } from './lookups/api-client.js'
import { createYauaaStep, DEFAULT_YAUAA_CACHE_SIZE } from './pipeline/enrichments/yauaa.js'
import {
  createCurrencyConversionStep,
  isKnownCurrency,
} from './pipeline/enrichments/currency-conversion.js'
import { openExchangeRates } from './lookups/open-exchange-rates.js'
import type { OffloadedSelect } from './pipeline/enrichments/json-path-selection.js'
import { parsePiiConfig } from './pipeline/enrichments/pii-config.js'
import {
  createAsnLookupsStep,
  createBotDetectionStep,
} from './pipeline/enrichments/bot-detection.js'
import { readBotAsns } from './bot-asns-file.js'
import { readIabLists } from './iab-lists.js'
import { createIabStep } from './pipeline/enrichments/iab-spiders-and-robots.js'
import { createPiiPseudonymizationStep } from './pipeline/enrichments/pii-pseudonymization.js'

export const SP = 'com.snowplowanalytics.snowplow'
const IP_LOOKUP_DATABASES: readonly IpLookupDatabase[] = [
  'geo',
  'isp',
  'domain',
  'connectionType',
  'asn',
]

/** What a builder may use besides its parameters. */
export interface BuildContext {
  /** The configuration's schema URI. */
  readonly schema: string
  /** The configuration's whole `data` (`enabled`, `parameters` and the settings beside them). */
  readonly data: Record<string, unknown>
  /** Where relative asset locations start: the enrichments directory. */
  readonly directory: string
  /** Start-up notes to log, such as skipped rules. */
  readonly warnings: string[]
  /** Where the configuration came from: names a script's runtime. */
  readonly where: string
  /** What the enrichments run on. */
  readonly deps: EnrichmentDeps
  /** Called at shutdown, for what a builder opened (a database pool). */
  readonly onClose: (close: () => Promise<void>) => void
}

/** What the enrichments run on: the script sandbox, the clock, and the lookups' budgets. */
export interface EnrichmentDeps {
  /** Runs JavaScript enrichment scripts (in a sandbox). */
  readonly runScript: JavascriptEnrichment['run']
  /** Epoch milliseconds (the lookups' caches count time with it). */
  readonly now: () => number
  /** The SQL query enrichment's budget per connection and query (FLOE_SQL_ENRICHMENT_TIMEOUT_MS). */
  readonly sqlTimeoutMs: number
  /** The largest answer the API request enrichment reads (bytes). */
  readonly apiMaxAnswerBytes: number
  /** Where currency conversion reads its rates (FLOE_CURRENCY_RATES_URL). */
  readonly currencyRatesUrl: string
  /** Runs JSONPaths over large documents off the event loop (the costly-work pool). */
  readonly offloadJsonPaths?: OffloadedSelect
}

/** The checked parameters, or an Error listing every problem. */
function checked<T>(parse: (problems: string[]) => T | null): T {
  const problems: string[] = []
  const parsed = parse(problems)
  if (parsed === null || problems.length > 0) throw new Error(problems.join('; '))
  return parsed
}

export type Builder = (
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
export const BUILDERS: Readonly<Record<string, Builder>> = {
  sql_query_enrichment_config: async (p, { schema, deps, onClose }) => {
    const config = checked((problems) => parseSqlQueryConfig(schema, p, problems))
    const settings = isJsonObject(p.database) ? p.database.postgresql : undefined
    if (!isJsonObject(settings))
      throw new Error(
        'parameters.database: Floe runs SQL query enrichments against PostgreSQL only (database.postgresql)',
      )
    const database = await openSqlDatabase(
      settings as unknown as SqlDatabaseSettings,
      deps.sqlTimeoutMs,
    )
    onClose(() => database.close())
    return {
      sqlQuery: createSqlQueryStep(
        config,
        (sql, values) => database.query(sql, values),
        deps.now,
        deps.offloadJsonPaths,
      ),
    }
  },
  api_request_enrichment_config: (p, { schema, deps }) => {
    const config = checked((problems) => parseApiRequestConfig(schema, p, problems))
    return {
      apiRequest: createApiRequestStep(
        config,
        (request) => sendApiRequest(request, deps.apiMaxAnswerBytes),
        deps.now,
        deps.offloadJsonPaths,
      ),
    }
  },
  currency_conversion_config: (p, { schema, deps }) => {
    const baseCurrency = String(p.baseCurrency)
    if (!isKnownCurrency(baseCurrency))
      throw new Error(`parameters.baseCurrency: Unknown currency '${baseCurrency}'`)
    const accountType = p.accountType
    if (accountType !== 'DEVELOPER' && accountType !== 'ENTERPRISE' && accountType !== 'UNLIMITED')
      throw new Error('parameters.accountType must be DEVELOPER, ENTERPRISE or UNLIMITED')
    return {
      currencyConversion: createCurrencyConversionStep(
        { schemaKey: schema, apiKey: String(p.apiKey), baseCurrency, accountType },
        openExchangeRates(deps.currencyRatesUrl),
        deps.now,
      ),
    }
  },
  iab_spiders_and_robots_enrichment: async (p, { schema, directory }) => {
    const file = (name: 'ipFile' | 'excludeUseragentFile' | 'includeUseragentFile') => {
      const entry = p[name]
      if (!isJsonObject(entry)) throw new Error(`parameters.${name} is missing`)
      return localAssetPath(String(entry.uri), String(entry.database), directory)
    }
    const patterns = (value: unknown) => (Array.isArray(value) ? value.map(String) : [])
    const lists = await readIabLists({
      ipFile: file('ipFile'),
      excludeUseragentFile: file('excludeUseragentFile'),
      includeUseragentFile: file('includeUseragentFile'),
      includeUseragents: patterns(p.includeUseragents),
      excludeUseragents: patterns(p.excludeUseragents),
    })
    return { iab: createIabStep(lists, schema) }
  },
  asn_lookups: async (p, { directory }) => {
    const botAsns = new Set<number>()
    if (isJsonObject(p.botAsnsFile)) {
      const file = localAssetPath(
        String(p.botAsnsFile.uri),
        String(p.botAsnsFile.database),
        directory,
      )
      for (const asn of await readBotAsns(file)) botAsns.add(asn)
    }
    for (const entry of Array.isArray(p.botAsns) ? p.botAsns : [])
      if (isJsonObject(entry) && typeof entry.asn === 'number') botAsns.add(entry.asn)
    const bypassPlatforms = new Set(
      Array.isArray(p.bypassPlatforms) ? p.bypassPlatforms.map(String) : [],
    )
    return { asnLookups: createAsnLookupsStep({ botAsns, bypassPlatforms }) }
  },
  bot_detection_enrichment_config: (p) => ({
    botDetection: createBotDetectionStep({
      useYauaa: p.useYauaa === true,
      useIab: p.useIab === true,
      useAsnLookups: p.useAsnLookups === true,
      useClientSideDetection: p.useClientSideDetection === true,
    }),
  }),
  pii_enrichment_config: (_p, { schema, data, deps }) => ({
    piiPseudonymization: createPiiPseudonymizationStep(
      checked((problems) => parsePiiConfig(schema, data, problems)),
      schema,
      deps.offloadJsonPaths,
    ),
  }),
  yauaa_enrichment_config: (p) => ({
    yauaa: createYauaaStep({
      cacheSize:
        typeof p.cacheSize === 'number' && Number.isInteger(p.cacheSize)
          ? p.cacheSize
          : DEFAULT_YAUAA_CACHE_SIZE,
    }),
  }),
  javascript_script_config: (p, { schema, where, deps }) => ({
    javascript: [
      {
        schemaKey: schema,
        script: {
          id: where,
          source: decodedScript(p.script),
          config: isJsonObject(p.config) ? p.config : {},
        },
        run: deps.runScript,
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
export const FLAG_DEFAULTS: Readonly<
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
  yauaa_enrichment_config: {
    schema: `iglu:${SP}.enrichments/yauaa_enrichment_config/jsonschema/1-0-0`,
    parameters: {},
  },
}

/** Enrichments to enable from a directory of Snowplow configuration files and from flags. */
