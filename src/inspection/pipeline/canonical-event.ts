import { BoundedMemo } from '../../shared/index.js'

/** The 131 fields of the canonical enriched event, in TSV column order. */
export const CANONICAL_FIELDS = [
  'app_id',
  'platform',
  'etl_tstamp',
  'collector_tstamp',
  'dvce_created_tstamp',
  'event',
  'event_id',
  'txn_id',
  'name_tracker',
  'v_tracker',
  'v_collector',
  'v_etl',
  'user_id',
  'user_ipaddress',
  'user_fingerprint',
  'domain_userid',
  'domain_sessionidx',
  'network_userid',
  'geo_country',
  'geo_region',
  'geo_city',
  'geo_zipcode',
  'geo_latitude',
  'geo_longitude',
  'geo_region_name',
  'ip_isp',
  'ip_organization',
  'ip_domain',
  'ip_netspeed',
  'page_url',
  'page_title',
  'page_referrer',
  'page_urlscheme',
  'page_urlhost',
  'page_urlport',
  'page_urlpath',
  'page_urlquery',
  'page_urlfragment',
  'refr_urlscheme',
  'refr_urlhost',
  'refr_urlport',
  'refr_urlpath',
  'refr_urlquery',
  'refr_urlfragment',
  'refr_medium',
  'refr_source',
  'refr_term',
  'mkt_medium',
  'mkt_source',
  'mkt_term',
  'mkt_content',
  'mkt_campaign',
  'contexts',
  'se_category',
  'se_action',
  'se_label',
  'se_property',
  'se_value',
  'unstruct_event',
  'tr_orderid',
  'tr_affiliation',
  'tr_total',
  'tr_tax',
  'tr_shipping',
  'tr_city',
  'tr_state',
  'tr_country',
  'ti_orderid',
  'ti_sku',
  'ti_name',
  'ti_category',
  'ti_price',
  'ti_quantity',
  'pp_xoffset_min',
  'pp_xoffset_max',
  'pp_yoffset_min',
  'pp_yoffset_max',
  'useragent',
  'br_name',
  'br_family',
  'br_version',
  'br_type',
  'br_renderengine',
  'br_lang',
  'br_features_pdf',
  'br_features_flash',
  'br_features_java',
  'br_features_director',
  'br_features_quicktime',
  'br_features_realplayer',
  'br_features_windowsmedia',
  'br_features_gears',
  'br_features_silverlight',
  'br_cookies',
  'br_colordepth',
  'br_viewwidth',
  'br_viewheight',
  'os_name',
  'os_family',
  'os_manufacturer',
  'os_timezone',
  'dvce_type',
  'dvce_ismobile',
  'dvce_screenwidth',
  'dvce_screenheight',
  'doc_charset',
  'doc_width',
  'doc_height',
  'tr_currency',
  'tr_total_base',
  'tr_tax_base',
  'tr_shipping_base',
  'ti_currency',
  'ti_price_base',
  'base_currency',
  'geo_timezone',
  'mkt_clickid',
  'mkt_network',
  'etl_tags',
  'dvce_sent_tstamp',
  'refr_domain_userid',
  'refr_dvce_tstamp',
  'derived_contexts',
  'domain_sessionid',
  'derived_tstamp',
  'event_vendor',
  'event_name',
  'event_format',
  'event_version',
  'event_fingerprint',
  'true_tstamp',
] as const

export type CanonicalField = (typeof CANONICAL_FIELDS)[number]

export const TIMESTAMP_FIELDS = new Set<CanonicalField>([
  'etl_tstamp',
  'collector_tstamp',
  'dvce_created_tstamp',
  'dvce_sent_tstamp',
  'refr_dvce_tstamp',
  'derived_tstamp',
  'true_tstamp',
])
export const BOOLEAN_FIELDS = new Set<CanonicalField>([
  'br_features_pdf',
  'br_features_flash',
  'br_features_java',
  'br_features_director',
  'br_features_quicktime',
  'br_features_realplayer',
  'br_features_windowsmedia',
  'br_features_gears',
  'br_features_silverlight',
  'br_cookies',
  'dvce_ismobile',
])

/** A self-describing JSON: `{schema: "iglu:...", data}`. */
export interface SelfDescribing {
  readonly schema: string
  readonly data: unknown
}

/**
 * The event while it is being enriched. Scalars by field name (timestamps as epoch milliseconds,
 * booleans as booleans), every field present from the start and null until set; entities kept as
 * lists until the event is rendered.
 */
export interface EnrichedEvent {
  fields: Record<CanonicalField, string | number | boolean | null>
  contexts: SelfDescribing[]
  derivedContexts: SelfDescribing[]
  unstructEvent: SelfDescribing | null
  /**
   * Whether the tracker's entities hold a number a double rounds, kept as written
   * (`iglu/exact-numbers.ts`): the stored event is then written with its texts (`java-doubles.ts`).
   */
  entitiesKeepWrittenNumbers: boolean
}

/** Every canonical field, null: each event's fields start as a copy, so that all share this fast-property layout. */
const NULL_EVENT = Object.fromEntries(CANONICAL_FIELDS.map((field) => [field, null])) as Record<
  CanonicalField,
  null
>
const TIMESTAMP_LIST = [...TIMESTAMP_FIELDS]
/** `contexts` and `derived_contexts` of an event without any: `{}`, one frozen object shared by every stored event. */
const NO_ENTITIES = Object.freeze({})

export function emptyEvent(): EnrichedEvent {
  return {
    fields: { ...NULL_EVENT },
    contexts: [],
    derivedContexts: [],
    unstructEvent: null,
    entitiesKeepWrittenNumbers: false,
  }
}

export const CONTEXTS_SCHEMA = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'
export const UNSTRUCT_SCHEMA = 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0'

/** ISO prefixes (`yyyy-MM-ddTHH:mm:ss`) of recent whole seconds: an event's timestamps fall in a few seconds. */
const secondPrefixes = new BoundedMemo<number, string>(256, (second) =>
  new Date(second * 1000).toISOString().slice(0, -5),
)

/** `.000Z` … `.999Z`: with a kept prefix, a timestamp is one string of two shared parts. */
const MILLIS_SUFFIXES = Array.from({ length: 1000 }, (_, millis) =>
  millis === 0 ? 'Z' : `.${String(millis).padStart(3, '0')}Z`,
)

/**
 * The strings of recently written instants, by millisecond (a table of RECENT_INSTANTS places, each
 * holding the last instant that fell there): an event's collector time, its request's, and the
 * processing times of events handled in the same millisecond share one string instead of a copy each.
 */
const RECENT_INSTANTS = 256
const recentInstantMillis = new Float64Array(RECENT_INSTANTS).fill(NaN)
const recentInstantTexts: string[] = new Array<string>(RECENT_INSTANTS).fill('')

/** Java's `Instant.toString`: ISO 8601 UTC, a zero millisecond part left out. */
export function instantString(epochMillis: number): string {
  const place = Math.abs(epochMillis % RECENT_INSTANTS) | 0
  if (recentInstantMillis[place] === epochMillis) return recentInstantTexts[place] as string
  const second = Math.floor(epochMillis / 1000)
  // `| 0`: a fractional millisecond is cut off, as `Date` does.
  const text =
    secondPrefixes.get(second) + (MILLIS_SUFFIXES[(epochMillis - second * 1000) | 0] ?? 'Z')
  recentInstantMillis[place] = epochMillis
  recentInstantTexts[place] = text
  return text
}

/** The TSV and bad-row form: `yyyy-MM-dd HH:mm:ss.SSS`, UTC. */
export function tsvTimestamp(epochMillis: number): string {
  return new Date(epochMillis).toISOString().replace('T', ' ').replace('Z', '')
}

/**
 * The analytics-SDK JSON of the event (Micro's `event`): all 131 keys, nulls kept, in column order.
 * It is a copy of the fields (which hold every key from the start: adding 131 computed keys one by
 * one to an empty object would turn it into a hash table, about six times bigger, and it is kept for
 * every stored event) with timestamps written out and the entities wrapped.
 */
export function toCanonicalJson(event: EnrichedEvent): Record<CanonicalField, unknown> {
  return renderFields({ ...event.fields }, event)
}

/**
 * `toCanonicalJson` without the copy: the event's own fields object becomes its JSON, so the event
 * must not be read as an `EnrichedEvent` afterwards. The collector renders each event once, as the
 * last thing it does with it; a copy of 131 slots (~1 kB) per event is saved.
 */
export function intoCanonicalJson(event: EnrichedEvent): Record<CanonicalField, unknown> {
  return renderFields(event.fields, event)
}

function renderFields(
  out: Record<CanonicalField, unknown>,
  event: EnrichedEvent,
): Record<CanonicalField, unknown> {
  for (const field of TIMESTAMP_LIST) {
    const value = out[field]
    if (typeof value === 'number') out[field] = instantString(value)
  }
  out.contexts =
    event.contexts.length === 0 ? NO_ENTITIES : { schema: CONTEXTS_SCHEMA, data: event.contexts }
  out.derived_contexts =
    event.derivedContexts.length === 0
      ? NO_ENTITIES
      : { schema: CONTEXTS_SCHEMA, data: event.derivedContexts }
  out.unstruct_event =
    event.unstructEvent === null ? null : { schema: UNSTRUCT_SCHEMA, data: event.unstructEvent }
  return out
}

/** The bad-row form (`PartiallyEnrichedEvent`): TSV-style strings, booleans as 0/1, entities as JSON strings. */
export function toPartiallyEnriched(event: EnrichedEvent): Record<CanonicalField, unknown> {
  const out = {} as Record<CanonicalField, unknown>
  for (const field of CANONICAL_FIELDS) {
    if (field === 'contexts')
      out[field] =
        event.contexts.length === 0
          ? null
          : JSON.stringify({ schema: CONTEXTS_SCHEMA, data: event.contexts })
    else if (field === 'derived_contexts')
      out[field] =
        event.derivedContexts.length === 0
          ? null
          : JSON.stringify({ schema: CONTEXTS_SCHEMA, data: event.derivedContexts })
    else if (field === 'unstruct_event')
      out[field] =
        event.unstructEvent === null
          ? null
          : JSON.stringify({ schema: UNSTRUCT_SCHEMA, data: event.unstructEvent })
    else {
      const value = event.fields[field] ?? null
      if (value !== null && TIMESTAMP_FIELDS.has(field) && typeof value === 'number')
        out[field] = tsvTimestamp(value)
      else if (typeof value === 'boolean') out[field] = value ? 1 : 0
      else out[field] = value
    }
  }
  return out
}
