import type { CanonicalField, EnrichedEvent } from '../canonical-event.js'

/** One parameter that did not convert: reported together as one atomic schema violation. */
export interface AtomicParseError {
  readonly field: string
  readonly value: string | null
  readonly message: string
}

/** Why a parameter did not convert; each kind is one shared instance (no object per parameter). */
class Failure {
  constructor(readonly message: string) {}
}
const fail = (message: string) => new Failure(message)

type Converted = string | number | boolean | null | Failure
type Conversion = (raw: string) => Converted

const NOT_INTEGER = fail('Cannot be converted to java.lang.Integer')
const NOT_DECIMAL = fail(
  `Cannot be converted to java.math.BigDecimal. Error : Character array is missing "exponent" mark 'e' or 'E'.`,
)
const DECIMAL_TOO_LARGE = fail('Cannot be converted to java.math.BigDecimal. Error : Too large')
const NOT_BOOLEAN = fail('Cannot be converted to Boolean-like java.lang.Byte')
const NOT_MILLIS = fail('Not in the expected format: ms since epoch')
const NOT_REDSHIFT_TIMESTAMP = fail(
  'Formatting as yyyy-MM-dd HH:mm:ss.SSS is not Redshift-compatible',
)
const NOT_UUID = fail('Not a valid UUID')
const NOT_EVENT_TYPE = fail('Not a valid event type')
const NOT_PLATFORM = fail('Not a valid platform')

// eslint-disable-next-line no-control-regex
const TSV_UNSAFE = /[\u0000-\u001f\u007f]/

/** TAB → 4 spaces, control characters removed, empty → null. */
export function tsvSafe(raw: string): string | null {
  // Most values have neither: one scan, and the text is kept as it is.
  if (!TSV_UNSAFE.test(raw)) return raw === '' ? null : raw
  // eslint-disable-next-line no-control-regex
  const cleaned = raw.replace(/\t/g, '    ').replace(/[\u0000-\u001f\u007f]/g, '')
  return cleaned === '' ? null : cleaned
}

const str: Conversion = (raw) => tsvSafe(raw)

const int: Conversion = (raw) => {
  if (raw.toLowerCase() === 'null') return null
  if (!/^[+-]?\d+$/.test(raw)) return NOT_INTEGER
  const value = Number(raw)
  return value >= -2147483648 && value <= 2147483647 ? value : NOT_INTEGER
}

const dec: Conversion = (raw) => {
  if (raw.toLowerCase() === 'null') return null
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return NOT_DECIMAL
  const value = Number(raw)
  return Number.isFinite(value) ? value : DECIMAL_TOO_LARGE
}

const bool: Conversion = (raw) => (raw === '1' ? true : raw === '0' ? false : NOT_BOOLEAN)

const MAX_TIMESTAMP = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const MIN_TIMESTAMP = Date.parse('0000-01-01T00:00:00.000Z')
const ts: Conversion = (raw) => {
  if (!/^[+-]?\d+$/.test(raw)) return NOT_MILLIS
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value > MAX_TIMESTAMP || value < MIN_TIMESTAMP)
    return NOT_REDSHIFT_TIMESTAMP
  return value
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const uuid: Conversion = (raw) => {
  const lower = raw.toLowerCase()
  return UUID.test(lower) ? lower : NOT_UUID
}

/** The `e` parameter's codes and the event types they enrich to. */
export const EVENT_TYPES: Readonly<Record<string, string>> = {
  pv: 'page_view',
  pp: 'page_ping',
  se: 'struct',
  ev: 'struct',
  ue: 'unstruct',
  tr: 'transaction',
  ti: 'transaction_item',
  ad: 'ad_impression',
}
const eventType: Conversion = (raw) =>
  Object.hasOwn(EVENT_TYPES, raw) ? (EVENT_TYPES[raw] ?? null) : NOT_EVENT_TYPE

const PLATFORMS = ['web', 'iot', 'app', 'mob', 'pc', 'cnsl', 'tv', 'srv', 'headset']
const platform: Conversion = (raw) => (PLATFORMS.includes(raw) ? raw : NOT_PLATFORM)

const firstIp: Conversion = (raw) => tsvSafe(raw.split(/[,| ]/)[0] ?? '')

/**
 * A lookup table by parameter name without a prototype: a tracker may send any name, and
 * `constructor` or `toString` must find nothing, as any other unknown parameter does.
 */
const byName = <T>(entries: Record<string, T>): Readonly<Record<string, T>> =>
  Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries))

/** Single-field parameters: parameter → (field, conversion). */
const SIMPLE = byName<readonly [CanonicalField, Conversion]>({
  e: ['event', eventType],
  eid: ['event_id', uuid],
  tv: ['v_tracker', str],
  tna: ['name_tracker', str],
  p: ['platform', platform],
  aid: ['app_id', str],
  tid: ['txn_id', int],
  dtm: ['dvce_created_tstamp', ts],
  stm: ['dvce_sent_tstamp', ts],
  ttm: ['true_tstamp', ts],
  uid: ['user_id', str],
  duid: ['domain_userid', str],
  nuid: ['network_userid', str],
  sid: ['domain_sessionid', uuid],
  vid: ['domain_sessionidx', int],
  fp: ['user_fingerprint', str],
  ip: ['user_ipaddress', firstIp],
  ua: ['useragent', str],
  url: ['page_url', str],
  refr: ['page_referrer', str],
  page: ['page_title', str],
  cd: ['br_colordepth', str],
  cs: ['doc_charset', str],
  lang: ['br_lang', str],
  tz: ['os_timezone', str],
  cookie: ['br_cookies', bool],
  cv: ['v_collector', str],
  f_pdf: ['br_features_pdf', bool],
  f_fla: ['br_features_flash', bool],
  f_java: ['br_features_java', bool],
  f_dir: ['br_features_director', bool],
  f_qt: ['br_features_quicktime', bool],
  f_realp: ['br_features_realplayer', bool],
  f_wma: ['br_features_windowsmedia', bool],
  f_gears: ['br_features_gears', bool],
  f_ag: ['br_features_silverlight', bool],
  se_ca: ['se_category', str],
  se_ac: ['se_action', str],
  se_la: ['se_label', str],
  se_pr: ['se_property', str],
  se_va: ['se_value', dec],
  ev_ca: ['se_category', str],
  ev_ac: ['se_action', str],
  ev_la: ['se_label', str],
  ev_pr: ['se_property', str],
  ev_va: ['se_value', dec],
  tr_id: ['tr_orderid', str],
  tr_af: ['tr_affiliation', str],
  tr_ci: ['tr_city', str],
  tr_st: ['tr_state', str],
  tr_co: ['tr_country', str],
  tr_cu: ['tr_currency', str],
  tr_tt: ['tr_total', dec],
  tr_tx: ['tr_tax', dec],
  tr_sh: ['tr_shipping', dec],
  ti_id: ['ti_orderid', str],
  ti_sk: ['ti_sku', str],
  ti_nm: ['ti_name', str],
  ti_na: ['ti_name', str],
  ti_ca: ['ti_category', str],
  ti_cu: ['ti_currency', str],
  ti_pr: ['ti_price', dec],
  ti_qu: ['ti_quantity', int],
  pp_mix: ['pp_xoffset_min', int],
  pp_max: ['pp_xoffset_max', int],
  pp_miy: ['pp_yoffset_min', int],
  pp_may: ['pp_yoffset_max', int],
})

/** Dimension parameters (`1920x1080`) → two integer fields. */
const DIMENSIONS = byName<readonly [CanonicalField, CanonicalField]>({
  res: ['dvce_screenwidth', 'dvce_screenheight'],
  vp: ['br_viewwidth', 'br_viewheight'],
  ds: ['doc_width', 'doc_height'],
})

const DIMENSION = /^\d+x\d+$/

function dimension(
  raw: string,
): { ok: true; value: [number, number] } | { ok: false; message: string } {
  // Tested, then cut at its one `x`: no match array and captures for each of a page view's three.
  if (!DIMENSION.test(raw)) return { ok: false, message: 'Does not conform to regex (\\d+)x(\\d+)' }
  const at = raw.indexOf('x')
  const width = Number(raw.slice(0, at))
  const height = Number(raw.slice(at + 1))
  if (width > 2147483647 || height > 2147483647)
    return { ok: false, message: 'Could not be converted to java.lang.Integer s' }
  return { ok: true, value: [width, height] }
}

/**
 * Maps tracker-protocol parameters onto the event, collecting every conversion error instead of
 * stopping at the first. Unknown parameters are ignored; `tnuid` is applied last, so it beats `nuid`.
 */
export function parseAtomicFields(
  event: EnrichedEvent,
  parameters: ReadonlyMap<string, string | null>,
): AtomicParseError[] {
  const errors: AtomicParseError[] = []
  // `forEach`, not `for…of`: a Map's for…of makes a `[name, value]` array for every parameter.
  parameters.forEach((raw, name) => {
    if (raw === null) return
    const simple = SIMPLE[name]
    if (simple !== undefined) {
      const converted = simple[1](raw)
      if (converted instanceof Failure)
        errors.push({ field: name, value: raw, message: converted.message })
      else event.fields[simple[0]] = converted
      return
    }
    const pair = DIMENSIONS[name]
    if (pair !== undefined) {
      const converted = dimension(raw)
      if (converted.ok) [event.fields[pair[0]], event.fields[pair[1]]] = converted.value
      else errors.push({ field: name, value: raw, message: converted.message })
    }
  })
  const tnuid = parameters.get('tnuid')
  if (tnuid !== undefined && tnuid !== null) event.fields.network_userid = tsvSafe(tnuid)
  return errors
}
