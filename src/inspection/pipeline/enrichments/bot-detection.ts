import { isJsonObject } from '../../../shared/index.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import { ASN_CONTEXT } from './ip-lookups.js'
import { YAUAA_CONTEXT } from './yauaa.js'

/**
 * Two of Enrich's bot signals. `asn_lookups` marks the `asn` entity IP lookups derived with
 * `likelyBot`: whether its autonomous system is one of the configured bot ASNs (hosting, cloud),
 * unless the event's platform is bypassed. `bot_detection_enrichment_config` then sums up the
 * signals it is told to use in one `bot_detection` entity: YAUAA's device or agent class, the IAB
 * entity's verdict, the `asn` entity's `likelyBot`, and the tracker's own `client_side_bot_detection`
 * entity. Entities are matched by their exact schema, as in Enrich.
 */

export const BOT_DETECTION_CONTEXT =
  'iglu:com.snowplowanalytics.snowplow/bot_detection/jsonschema/1-0-1'
const IAB_CONTEXT = 'iglu:com.iab.snowplow/spiders_and_robots/jsonschema/1-0-0'
const CLIENT_SIDE_CONTEXT =
  'iglu:com.snowplowanalytics.snowplow/client_side_bot_detection/jsonschema/1-0-0'

export interface AsnLookupsConfig {
  /** ASNs of bots: the CSV file's first column and the `botAsns` listed. */
  readonly botAsns: ReadonlySet<number>
  /** Platforms (`p`) whose events keep their `asn` entity as it is. */
  readonly bypassPlatforms: ReadonlySet<string>
}

/** A property of an entity's data, when the data is an object. */
const field = (data: unknown, name: string): unknown =>
  isJsonObject(data) ? data[name] : undefined

/** asn_lookups: each `asn` 1-0-1 entity made again with `likelyBot` (and no null organization). */
export function createAsnLookupsStep(config: AsnLookupsConfig) {
  return function asnLookupsStep(event: EnrichedEvent): void {
    const platform = event.fields.platform
    if (typeof platform === 'string' && config.bypassPlatforms.has(platform)) return
    const entities = event.derivedContexts
    for (let at = 0; at < entities.length; at++) {
      const entity = entities[at]!
      const number = field(entity.data, 'number')
      if (entity.schema !== ASN_CONTEXT || typeof number !== 'number' || !Number.isInteger(number))
        continue
      const organization = field(entity.data, 'organization')
      entities[at] = {
        schema: ASN_CONTEXT,
        data: {
          number,
          ...(typeof organization === 'string' ? { organization } : {}),
          likelyBot: config.botAsns.has(number),
        },
      }
    }
  }
}

export interface BotDetectionConfig {
  readonly useYauaa: boolean
  readonly useIab: boolean
  readonly useAsnLookups: boolean
  /** 1-0-1 only: the tracker's `client_side_bot_detection` entity. */
  readonly useClientSideDetection: boolean
}

type Indicator = 'yauaa' | 'iab' | 'asnLookups' | 'clientSideDetection'

const BOT_DEVICE_CLASSES = new Set(['Robot', 'Robot Mobile', 'Robot Imitator'])
const BOT_AGENT_CLASSES = new Set(['Robot', 'Robot Mobile'])

/** The derived entities' signals: by schema, which indicator it is and whether it says bot. */
const DERIVED_SIGNALS: ReadonlyMap<string, [Indicator, (data: unknown) => boolean]> = new Map([
  [
    YAUAA_CONTEXT,
    [
      'yauaa',
      (data) =>
        BOT_DEVICE_CLASSES.has(String(field(data, 'deviceClass'))) ||
        BOT_AGENT_CLASSES.has(String(field(data, 'agentClass'))),
    ],
  ],
  [IAB_CONTEXT, ['iab', (data) => field(data, 'spiderOrRobot') === true]],
  [ASN_CONTEXT, ['asnLookups', (data) => field(data, 'likelyBot') === true]],
])

/** The indicators a list of entities raises, the list read from its end, as Enrich folds it. */
function raised(
  entities: readonly SelfDescribing[],
  signal: (entity: SelfDescribing) => Indicator | null,
): Indicator[] {
  const found: Indicator[] = []
  for (let at = entities.length - 1; at >= 0; at--) {
    const indicator = signal(entities[at]!)
    if (indicator !== null) found.push(indicator)
  }
  return found
}

/** bot_detection: one `bot_detection` entity on every event, `bot` when any enabled signal says so. */
export function createBotDetectionStep(config: BotDetectionConfig) {
  const enabled = new Set<Indicator>([
    ...(config.useYauaa ? (['yauaa'] as const) : []),
    ...(config.useIab ? (['iab'] as const) : []),
    ...(config.useAsnLookups ? (['asnLookups'] as const) : []),
  ])
  const derivedSignal = (entity: SelfDescribing): Indicator | null => {
    const signal = DERIVED_SIGNALS.get(entity.schema)
    return signal !== undefined && enabled.has(signal[0]) && signal[1](entity.data)
      ? signal[0]
      : null
  }
  const clientSignal = (entity: SelfDescribing): Indicator | null =>
    entity.schema === CLIENT_SIDE_CONTEXT && field(entity.data, 'bot') === true
      ? 'clientSideDetection'
      : null
  return function botDetectionStep(event: EnrichedEvent): void {
    const indicators = [
      ...(config.useClientSideDetection ? raised(event.contexts, clientSignal) : []),
      ...(enabled.size > 0 ? raised(event.derivedContexts, derivedSignal) : []),
    ]
    event.derivedContexts.unshift({
      schema: BOT_DETECTION_CONTEXT,
      data: { bot: indicators.length > 0, indicators },
    })
  }
}
