import type { CanonicalField, EnrichedEvent } from '../canonical-event.js'

/** The reference pipeline's default maximum lengths of the string fields. */
export const FIELD_LENGTH_LIMITS: readonly [number, readonly CanonicalField[]][] = [
  [2, ['geo_country']],
  [3, ['geo_region', 'tr_currency', 'ti_currency', 'base_currency']],
  [12, ['br_colordepth']],
  [15, ['geo_zipcode']],
  [16, ['page_urlscheme', 'refr_urlscheme']],
  [25, ['refr_medium']],
  [36, ['event_id']],
  [
    50,
    [
      'refr_source',
      'br_name',
      'br_family',
      'br_version',
      'br_type',
      'br_renderengine',
      'os_name',
      'os_family',
      'os_manufacturer',
      'dvce_type',
    ],
  ],
  [64, ['mkt_network', 'geo_timezone']],
  [75, ['geo_city']],
  [100, ['v_tracker', 'v_collector', 'v_etl', 'geo_region_name', 'ip_isp', 'ip_netspeed']],
  [
    128,
    [
      'event',
      'name_tracker',
      'user_ipaddress',
      'user_fingerprint',
      'domain_userid',
      'network_userid',
      'ip_organization',
      'ip_domain',
      'doc_charset',
      'refr_domain_userid',
      'domain_sessionid',
      'event_format',
      'event_version',
      'event_fingerprint',
    ],
  ],
  [
    255,
    [
      'app_id',
      'platform',
      'user_id',
      'page_urlhost',
      'refr_urlhost',
      'refr_term',
      'mkt_medium',
      'mkt_source',
      'mkt_term',
      'mkt_campaign',
      'tr_orderid',
      'tr_affiliation',
      'tr_city',
      'tr_state',
      'tr_country',
      'ti_orderid',
      'ti_sku',
      'ti_name',
      'ti_category',
      'br_lang',
      'os_timezone',
    ],
  ],
  [500, ['mkt_content', 'etl_tags']],
  [
    1000,
    [
      'se_category',
      'se_action',
      'se_property',
      'useragent',
      'event_vendor',
      'event_name',
      'mkt_clickid',
    ],
  ],
  [2000, ['page_title']],
  [3000, ['page_urlpath', 'page_urlfragment', 'refr_urlfragment']],
  [4096, ['se_label']],
  [6000, ['page_urlquery', 'refr_urlpath', 'refr_urlquery']],
  [10000, ['page_url', 'page_referrer']],
]

export interface LengthViolation {
  readonly field: CanonicalField
  readonly limit: number
}

type Fields = EnrichedEvent['fields']

/**
 * The check as one generated function of named property reads, one statement per limited field. The
 * fields object has 131 keys: a loop reading them by computed key costs ~40 ns a read here (~4 µs an
 * event), named reads on its one shared layout ~1 ns. Generated from the constant table above only.
 */
function compileLengthCheck(): (fields: Fields) => LengthViolation[] {
  const statements = FIELD_LENGTH_LIMITS.flatMap(([limit, fields]) =>
    fields.map((field) => {
      if (!/^[a-z_]+$/.test(field)) throw new Error(`not a canonical field name: ${field}`)
      return `if (typeof f.${field} === 'string' && f.${field}.length > ${limit}) found.push({ field: '${field}', limit: ${limit} })`
    }),
  )
  return new Function('f', ['const found = []', ...statements, 'return found'].join('\n')) as (
    fields: Fields,
  ) => LengthViolation[]
}
const lengthCheck = compileLengthCheck()

/** Fields longer than the atomic limits (UTF-16 units, as Java counts), in the table's order. */
export function checkFieldLengths(event: EnrichedEvent): LengthViolation[] {
  return lengthCheck(event.fields)
}
