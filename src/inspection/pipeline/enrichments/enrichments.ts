export type { EnrichmentFailure } from './enrichment-failure.js'
import type { createAnonymizeIpStep } from './anonymize-ip.js'
import type { createCampaignAttributionStep } from './campaign-attribution.js'
import type { createEventFingerprintStep } from './event-fingerprint.js'
import type { createCookieExtractorStep, createHeaderExtractorStep } from './extract-headers.js'
import type { createIpLookupsStep } from './ip-lookups.js'
import type { createRefererParserStep } from './referer-parser.js'
import type { createUaParserStep } from './ua-parser.js'
import type { createSqlQueryStep } from './sql-query.js'
import type { createYauaaStep } from './yauaa.js'
import type { createCurrencyConversionStep } from './currency-conversion.js'
import type { createApiRequestStep } from './api-request.js'
import type { createPiiPseudonymizationStep } from './pii-pseudonymization.js'
import type { createAsnLookupsStep, createBotDetectionStep } from './bot-detection.js'
import type { createIabStep } from './iab-spiders-and-robots.js'
import type { JavascriptScript, ScriptAnswer, ScriptCall } from './javascript-script.js'
import type { EnrichedEvent } from '../canonical-event.js'
import type { SpecificationCheck } from '../steps/check-event-specification.js'

/** One JavaScript enrichment: its configuration's schema, its script, and what runs the script (a sandbox). */
export interface JavascriptEnrichment {
  readonly schemaKey: string
  readonly script: JavascriptScript
  readonly run: (call: ScriptCall) => Promise<ScriptAnswer>
}

/** The optional enrichments that are switched on, each a step built from its configuration. */
export interface Enrichments {
  /** The IAB spiders and robots list, after the derived timestamp (it reads the address before anonymisation). */
  readonly iab?: ReturnType<typeof createIabStep>
  readonly uaParser?: ReturnType<typeof createUaParserStep>
  readonly currencyConversion?: ReturnType<typeof createCurrencyConversionStep>
  readonly refererParser?: ReturnType<typeof createRefererParserStep>
  readonly campaignAttribution?: ReturnType<typeof createCampaignAttributionStep>
  readonly eventFingerprint?: ReturnType<typeof createEventFingerprintStep>
  readonly cookieExtractor?: ReturnType<typeof createCookieExtractorStep>
  readonly headerExtractor?: ReturnType<typeof createHeaderExtractorStep>
  readonly yauaa?: ReturnType<typeof createYauaaStep>
  readonly ipLookups?: ReturnType<typeof createIpLookupsStep>
  /** After IP lookups: `likelyBot` on their `asn` entity. */
  readonly asnLookups?: ReturnType<typeof createAsnLookupsStep>
  /** After ASN lookups: the `bot_detection` entity from the signals before it. */
  readonly botDetection?: ReturnType<typeof createBotDetectionStep>
  readonly anonymizeIp?: ReturnType<typeof createAnonymizeIpStep>
  /** JavaScript enrichments, run in this order (after IP lookups, before IP anonymisation). */
  readonly javascript?: readonly JavascriptEnrichment[]
  /** The SQL query enrichment (after JavaScript), then the API request enrichment. */
  readonly sqlQuery?: ReturnType<typeof createSqlQueryStep>
  readonly apiRequest?: ReturnType<typeof createApiRequestStep>
  /** PII pseudonymization, after IP anonymisation: the last enrichment before the event specification. */
  readonly piiPseudonymization?: ReturnType<typeof createPiiPseudonymizationStep>
  /** The event against its event specification (the tracking plans), last in the chain, as Enrich's event-spec step. */
  readonly eventSpecification?: (
    event: EnrichedEvent,
  ) => SpecificationCheck | null | Promise<SpecificationCheck | null>
}
