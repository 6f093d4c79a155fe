import type { EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import { parseUserAgent, type UaParserRules } from './ua-parser-rules.js'

export const UA_PARSER_CONTEXT =
  'iglu:com.snowplowanalytics.snowplow/ua_parser_context/jsonschema/1-0-0'
const IDENTIFIER = 'ua-parser'

/** `ua_parser_config`: the compiled uap-core rules, and the configuration's schema (named in failures). */
export interface UaParserConfig {
  readonly rules: UaParserRules
  readonly schemaKey: string
}

/** Family, then " major", then ".part" for each later part that is present (upstream's version strings). */
function versionString(
  family: string,
  [major = null, ...rest]: readonly (string | null)[],
): string {
  return `${family}${major === null ? '' : ` ${major}`}${rest.map((part) => (part === null ? '' : `.${part}`)).join('')}`
}

/** The `ua_parser_context` entity of a user-agent string. */
export function uaParserContext(
  rules: UaParserRules,
  useragent: string,
): Record<string, string | null> {
  const { userAgent: ua, os, device } = parseUserAgent(rules, useragent)
  return {
    useragentFamily: ua.family,
    useragentMajor: ua.major,
    useragentMinor: ua.minor,
    useragentPatch: ua.patch,
    useragentVersion: versionString(ua.family, [ua.major, ua.minor, ua.patch]),
    osFamily: os.family,
    osMajor: os.major,
    osMinor: os.minor,
    osPatch: os.patch,
    osPatchMinor: os.patchMinor,
    osVersion: versionString(os.family, [os.major, os.minor, os.patch, os.patchMinor]),
    deviceFamily: device.family,
  }
}

/** ua_parser_config: one `ua_parser_context` entity from `useragent` (none without one); a parser error is this enrichment's failure. */
export function createUaParserStep(config: UaParserConfig) {
  return function uaParserStep(event: EnrichedEvent, failures: EnrichmentFailure[]): void {
    const useragent = event.fields.useragent
    if (typeof useragent !== 'string') return
    try {
      event.derivedContexts.unshift({
        schema: UA_PARSER_CONTEXT,
        data: uaParserContext(config.rules, useragent),
      })
    } catch (error) {
      failures.push({
        enrichment: { schemaKey: config.schemaKey, identifier: IDENTIFIER },
        message: {
          error: `Exception parsing useragent [${useragent}]: ${error instanceof Error ? error.message : String(error)}`,
        },
      })
    }
  }
}
