/**
 * Floe's own small set of the tracker-protocol schemas, so that events validate offline. Written
 * for Floe from the protocol's documented shape (not copied from Iglu Central): the envelopes
 * (payload_data, contexts, unstruct_event), the entities trackers send by default, and those
 * Floe's enrichments derive (ua_parser_context, asn, http_header, http_cookie), which are validated too.
 */
const SELF_DESC =
  'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#'
const SNOWPLOW = 'com.snowplowanalytics.snowplow'

const selfDescribing = (
  name: string,
  version: string,
  description: string,
  body: Record<string, unknown>,
) => ({
  $schema: SELF_DESC,
  description,
  self: { vendor: SNOWPLOW, name, format: 'jsonschema', version },
  ...body,
})

/** Parameters a tp2 POST body may carry (`cv` and the `ev_*` aliases are query-string only). */
const PAYLOAD_PARAMETERS = (
  'tna aid p dtm tz e tid eid tv duid nuid uid vid ip res url page refr fp ctype cookie lang f_pdf f_qt f_realp f_wma f_dir f_fla f_java ' +
  'f_gears f_ag cd ds cs vp mac pp_mix pp_max pp_miy pp_may ad_ba ad_ca ad_ad ad_uid tr_id tr_af tr_tt tr_tx tr_sh tr_ci tr_st tr_co tr_cu ' +
  'ti_id ti_sk ti_nm ti_na ti_ca ti_pr ti_qu ti_cu sa sn st sp se_ca se_ac se_la se_pr se_va ue_na ue_pr ue_px co cx ua tnuid stm sid ttm'
).split(' ')

const payloadData = (version: string) =>
  selfDescribing('payload_data', version, 'A batch of tracker-protocol events (Floe core schema)', {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      properties: Object.fromEntries(PAYLOAD_PARAMETERS.map((name) => [name, { type: 'string' }])),
      required: ['tv', 'p', 'e'],
      additionalProperties: false,
    },
  })

const IGLU_URI_PATTERN = '^iglu:[a-zA-Z0-9-_.]+/[a-zA-Z0-9-_]+/[a-zA-Z0-9-_]+/[0-9]+-[0-9]+-[0-9]+$'
const selfDescribingItem = {
  type: 'object',
  properties: { schema: { type: 'string', pattern: IGLU_URI_PATTERN }, data: {} },
  required: ['schema', 'data'],
  additionalProperties: false,
}
const contexts = (version: string) =>
  selfDescribing('contexts', version, 'A list of self-describing entities (Floe core schema)', {
    type: 'array',
    items: selfDescribingItem,
  })
const UUID = { type: 'string', format: 'uuid' }

const nullableString = { type: ['string', 'null'] }

/** The entity the ua_parser enrichment derives: family and version parts of the agent, its OS and device. */
const uaParserContext = selfDescribing(
  'ua_parser_context',
  '1-0-0',
  'User agent, OS and device parsed from the user-agent string (Floe core schema)',
  {
    type: 'object',
    properties: {
      useragentFamily: { type: 'string' },
      useragentMajor: nullableString,
      useragentMinor: nullableString,
      useragentPatch: nullableString,
      useragentVersion: { type: 'string' },
      osFamily: { type: 'string' },
      osMajor: nullableString,
      osMinor: nullableString,
      osPatch: nullableString,
      osPatchMinor: nullableString,
      osVersion: { type: 'string' },
      deviceFamily: { type: 'string' },
    },
    required: ['useragentFamily', 'useragentMajor', 'useragentMinor', 'osFamily', 'deviceFamily'],
    additionalProperties: false,
  },
)

/** The entity the ip_lookups enrichment derives from an ASN database. */
const asn = selfDescribing(
  'asn',
  '1-0-1',
  'Autonomous system of the IP address (Floe core schema)',
  {
    type: 'object',
    properties: {
      number: { type: 'integer', minimum: 0, maximum: 2147483647 },
      organization: nullableString,
      likelyBot: { type: 'boolean' },
    },
    required: ['number'],
    additionalProperties: false,
  },
)

/** An entity of the header and cookie extractors (vendor org.ietf): a name and a value of at most 4096 characters. */
const httpEntity = (name: string, description: string, value: Record<string, unknown>) => ({
  $schema: SELF_DESC,
  description,
  self: { vendor: 'org.ietf', name, format: 'jsonschema', version: '1-0-0' },
  type: 'object',
  properties: { name: { type: 'string', maxLength: 4096 }, value: { ...value, maxLength: 4096 } },
  required: ['name', 'value'],
  additionalProperties: false,
})

/** Every core schema by its Iglu URI. payload_data 1-0-0 to 1-0-3 share the 1-0-4 parameter list, a superset of theirs. */
export const CORE_SCHEMAS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ...['1-0-0', '1-0-1', '1-0-2', '1-0-3', '1-0-4'].map(
    (v) => [`iglu:${SNOWPLOW}/payload_data/jsonschema/${v}`, payloadData(v)] as const,
  ),
  ...['1-0-0', '1-0-1'].map(
    (v) => [`iglu:${SNOWPLOW}/contexts/jsonschema/${v}`, contexts(v)] as const,
  ),
  [
    `iglu:${SNOWPLOW}/unstruct_event/jsonschema/1-0-0`,
    selfDescribing(
      'unstruct_event',
      '1-0-0',
      'A self-describing event (Floe core schema)',
      selfDescribingItem,
    ),
  ],
  [`iglu:${SNOWPLOW}/ua_parser_context/jsonschema/1-0-0`, uaParserContext],
  [`iglu:${SNOWPLOW}/asn/jsonschema/1-0-1`, asn],
  [
    'iglu:org.ietf/http_header/jsonschema/1-0-0',
    httpEntity(
      'http_header',
      'One HTTP request header, as the header extractor derives it (Floe core schema)',
      { type: 'string' },
    ),
  ],
  [
    'iglu:org.ietf/http_cookie/jsonschema/1-0-0',
    httpEntity(
      'http_cookie',
      'One cookie of the request, as the cookie extractor derives it (Floe core schema)',
      { type: ['string', 'null'] },
    ),
  ],
  [
    `iglu:${SNOWPLOW}/uri_redirect/jsonschema/1-0-0`,
    selfDescribing(
      'uri_redirect',
      '1-0-0',
      'Where a click-tracking redirect sent the user (Floe core schema)',
      {
        type: 'object',
        properties: { uri: { type: 'string', format: 'uri' } },
        required: ['uri'],
        additionalProperties: false,
      },
    ),
  ],
  [
    `iglu:${SNOWPLOW}/web_page/jsonschema/1-0-0`,
    selfDescribing('web_page', '1-0-0', 'The page view a web event belongs to (Floe core schema)', {
      type: 'object',
      properties: { id: UUID },
      required: ['id'],
      additionalProperties: false,
    }),
  ],
  [
    `iglu:${SNOWPLOW}/client_session/jsonschema/1-0-2`,
    selfDescribing('client_session', '1-0-2', 'The tracker-side session (Floe core schema)', {
      type: 'object',
      properties: {
        userId: { type: 'string', maxLength: 36 },
        sessionId: UUID,
        sessionIndex: { type: 'integer', minimum: 0, maximum: 2147483647 },
        eventIndex: { type: ['integer', 'null'], minimum: 0, maximum: 2147483647 },
        previousSessionId: { type: ['string', 'null'], format: 'uuid' },
        storageMechanism: {
          type: 'string',
          enum: ['SQLITE', 'COOKIE_1', 'COOKIE_3', 'LOCAL_STORAGE', 'FLASH_LSO'],
        },
        firstEventId: { type: ['string', 'null'], format: 'uuid' },
        firstEventTimestamp: { type: ['string', 'null'], format: 'date-time' },
      },
      required: ['userId', 'sessionId', 'sessionIndex', 'previousSessionId', 'storageMechanism'],
      additionalProperties: false,
    }),
  ],
  [
    `iglu:${SNOWPLOW}/link_click/jsonschema/1-0-1`,
    selfDescribing('link_click', '1-0-1', 'A click on a link (Floe core schema)', {
      type: 'object',
      properties: {
        elementId: { type: 'string' },
        elementClasses: { type: 'array', items: { type: 'string' } },
        elementTarget: { type: 'string' },
        targetUrl: { type: 'string', minLength: 1 },
        elementContent: { type: 'string' },
      },
      required: ['targetUrl'],
      additionalProperties: false,
    }),
  ],
])
