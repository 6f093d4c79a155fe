import type { CollectorPayload, RawEvent } from './collector-payload.js'
import type { IgluValidation, ValidationVerdict } from './iglu-validation.js'
import { adaptIgluWebhook } from './iglu-webhook-adapter.js'
import { parameterValue } from './recurring-values.js'
import {
  MAX_EVENTS_PER_PAYLOAD,
  parseJson,
  queryMap,
  rawEvent,
  unstructEvent,
  type AdapterOutcome,
} from './raw-event-parts.js'
import { isIgluUri, isJsonObject } from '../../shared/index.js'

export { MAX_JSON_DEPTH, parseJson, type AdapterOutcome } from './raw-event-parts.js'

export const SNOWPLOW_VENDOR = 'com.snowplowanalytics.snowplow'
const IGLU_WEBHOOK_VENDOR = 'com.snowplowanalytics.iglu'
/** Content types a tp2 POST may have, after lowercasing. */
const TP2_CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8']
const PAYLOAD_DATA = /^iglu:com\.snowplowanalytics\.snowplow\/payload_data\/jsonschema\/1-0-\d+$/
export { MAX_EVENTS_PER_PAYLOAD }

/** The tp1 pixel: the query string is the event. */
function adaptTp1(payload: CollectorPayload): AdapterOutcome {
  if (payload.querystring.length === 0)
    return {
      kind: 'failure',
      badRowKind: 'adapter_failures',
      messages: [
        {
          field: 'querystring',
          value: null,
          expectation: 'empty querystring: not a valid URI redirect',
        },
      ],
    }
  return { kind: 'events', events: [rawEvent(payload, queryMap(payload))] }
}

const tp2Failure = (messages: unknown[]): AdapterOutcome => ({
  kind: 'failure',
  badRowKind: 'tracker_protocol_violations',
  messages,
})

/**
 * tp2: GET carries one event in the query string; POST a payload_data envelope, the query string
 * winning over each event, once the body is validated against its payload_data schema (at once
 * when the schema is known).
 */
function adaptTp2(
  payload: CollectorPayload,
  iglu: IgluValidation,
): AdapterOutcome | Promise<AdapterOutcome> {
  const fail = tp2Failure
  const query = queryMap(payload)
  if (payload.body === null || payload.body === '') {
    if (query.size > 0) return { kind: 'events', events: [rawEvent(payload, query)] }
    return fail([
      { field: 'body', value: null, expectation: 'empty body: not a valid tracker protocol event' },
      {
        field: 'querystring',
        value: null,
        expectation: 'empty querystring: not a valid tracker protocol event',
      },
    ])
  }
  if (
    payload.contentType === null ||
    !TP2_CONTENT_TYPES.includes(payload.contentType.toLowerCase())
  ) {
    return fail([
      {
        field: 'contentType',
        value: payload.contentType,
        expectation:
          'expected one of application/json, application/json; charset=utf-8, application/json; charset=UTF-8',
      },
    ])
  }
  const parsed = parseJson(payload.body)
  if (!parsed.ok)
    return fail([{ field: 'body', value: payload.body.slice(0, 1000), error: parsed.error }])
  const envelope = parsed.value
  if (!isJsonObject(envelope) || typeof envelope.schema !== 'string' || !('data' in envelope)) {
    return fail([{ json: envelope, error: 'INVALID_DATA_PAYLOAD' }])
  }
  if (!isIgluUri(envelope.schema)) return fail([{ json: envelope, error: 'INVALID_IGLUURI' }])
  // As Enrich: the body is validated against the schema it names, whatever that is, and only
  // then must the schema be payload_data's (an unknown schema is a resolution error).
  const { schema, data } = envelope
  const verdict = iglu.validateNow(schema, data)
  return verdict === undefined
    ? iglu.validate(schema, data).then((later) => tp2Events(payload, query, schema, data, later))
    : tp2Events(payload, query, schema, data, verdict)
}

/** The parameters that carry entities as text. */
const ENTITY_TEXTS = ['co', 'cx', 'ue_pr', 'ue_px'] as const

/**
 * A tracker's batch often carries the same entities text in consecutive events (a page's events
 * share its entities): each event takes the string of the event before it when equal, so that the
 * stored events hold one string between them.
 */
function keepEntityTextsOnce(
  parameters: Map<string, string | null>,
  before: ReadonlyMap<string, string | null>,
): void {
  for (const name of ENTITY_TEXTS) {
    const text = parameters.get(name)
    const earlier = before.get(name)
    // Equal texts (JavaScript compares strings by content): the earlier string replaces this one.
    if (typeof text === 'string' && earlier === text) parameters.set(name, earlier)
  }
}

/** The events of a tp2 body whose payload_data was judged `verdict`. */
function tp2Events(
  payload: CollectorPayload,
  query: ReadonlyMap<string, string | null>,
  schema: string,
  data: unknown,
  verdict: ValidationVerdict,
): AdapterOutcome {
  const fail = tp2Failure
  if (verdict.kind === 'invalid') return fail([{ schemaKey: schema, error: verdict.error }])
  if (!PAYLOAD_DATA.test(schema))
    return fail([
      {
        schemaKey: schema,
        schemaCriterion: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-*',
      },
    ])
  if (!Array.isArray(data))
    return fail([
      {
        field: 'data',
        value: JSON.stringify(data).slice(0, 1000),
        expectation: 'json is not an array',
      },
    ])
  if (data.length === 0)
    return fail([{ field: 'data', value: '[]', expectation: 'empty list of events' }])
  if (data.length > MAX_EVENTS_PER_PAYLOAD) return { kind: 'too-many-events', count: data.length }
  const events: RawEvent[] = []
  const messages: unknown[] = []
  // The entities texts of the event before: an equal one is kept once, for every event holding it.
  let before: ReadonlyMap<string, string | null> | null = null
  for (const item of data) {
    if (!isJsonObject(item)) {
      messages.push({
        field: 'data',
        value: JSON.stringify(item).slice(0, 1000),
        expectation: 'event is not an object',
      })
      continue
    }
    const parameters = new Map<string, string | null>()
    for (const name in item) {
      const value = item[name]
      if (value === null)
        messages.push({ field: name, value: null, expectation: 'value cannot be null' })
      else if (typeof value !== 'string')
        messages.push({
          field: name,
          value: JSON.stringify(value),
          expectation: 'value is not a string',
        })
      else parameters.set(name, parameterValue(name, value))
    }
    if (before !== null) keepEntityTextsOnce(parameters, before)
    for (const [name, value] of query) parameters.set(name, value)
    events.push(rawEvent(payload, parameters))
    before = parameters
  }
  return messages.length > 0 ? fail(messages) : { kind: 'events', events }
}

const URI_REDIRECT = 'iglu:com.snowplowanalytics.snowplow/uri_redirect/jsonschema/1-0-0'
const CONTEXTS = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'

/** A contexts envelope's entities, or null when the text is not one. */
function entitiesOf(text: string): unknown[] | null {
  const parsed = parseJson(text)
  return parsed.ok && isJsonObject(parsed.value) && Array.isArray(parsed.value.data)
    ? parsed.value.data
    : null
}

/**
 * `r/tp2`, a click-tracking redirect: the target `u` becomes a uri_redirect entity. Without an event
 * type it is the event itself (a self-describing event); with one it is put first among the
 * event's entities (`cx`, base64, or `co`, or a new `co`). `u` is dropped, `tv` is `r-tp2`, and
 * the platform is `web` unless given.
 */
function adaptRedirect(payload: CollectorPayload): AdapterOutcome {
  const fail = (field: string, value: string | null, expectation: string): AdapterOutcome => ({
    kind: 'failure',
    badRowKind: 'tracker_protocol_violations',
    messages: [{ field, value, expectation }],
  })
  const query = queryMap(payload)
  const target = query.get('u')
  if (target === undefined || target === null) {
    // As Enrich writes its parameter map: the last of a repeated name, `null` for no value.
    const text = [...query].map(([name, value]) => `${name}=${value ?? 'null'}`).join('&')
    return fail(
      'querystring',
      text === '' ? null : text.slice(0, 1000),
      'missing `u` parameter: not a valid URI redirect',
    )
  }
  const redirect = { schema: URI_REDIRECT, data: { uri: target } }
  // queryMap made this map for this event alone.
  const parameters = query
  parameters.delete('u')
  parameters.set('tv', 'r-tp2')
  if (!parameters.has('p')) parameters.set('p', 'web')
  if (!parameters.has('e')) {
    parameters.set('e', 'ue')
    parameters.set('ue_pr', unstructEvent(URI_REDIRECT, redirect.data))
    return { kind: 'events', events: [rawEvent(payload, parameters)] }
  }
  const encoded = parameters.get('cx')
  if (encoded !== undefined && encoded !== null) {
    const entities = entitiesOf(Buffer.from(encoded, 'base64').toString('utf8'))
    if (entities === null)
      return fail(
        'cx',
        encoded.slice(0, 1000),
        'not base64-encoded contexts: the redirect entity cannot be added',
      )
    parameters.set(
      'cx',
      Buffer.from(JSON.stringify({ schema: CONTEXTS, data: [redirect, ...entities] })).toString(
        'base64url',
      ),
    )
    return { kind: 'events', events: [rawEvent(payload, parameters)] }
  }
  const plain = parameters.get('co')
  const entities = plain === undefined || plain === null ? [] : entitiesOf(plain)
  if (entities === null)
    return fail(
      'co',
      (plain ?? '').slice(0, 1000),
      'not a contexts JSON: the redirect entity cannot be added',
    )
  parameters.set('co', JSON.stringify({ schema: CONTEXTS, data: [redirect, ...entities] }))
  return { kind: 'events', events: [rawEvent(payload, parameters)] }
}

/** Chooses the adapter by (vendor, version), as the reference does. */
export function adaptPayload(
  payload: CollectorPayload,
  iglu: IgluValidation,
): AdapterOutcome | Promise<AdapterOutcome> {
  const { vendor, version } = payload.api
  if (vendor === SNOWPLOW_VENDOR && version === 'tp1') return adaptTp1(payload)
  if (vendor === SNOWPLOW_VENDOR && version === 'tp2') return adaptTp2(payload, iglu)
  if (vendor === IGLU_WEBHOOK_VENDOR && version === 'v1') return adaptIgluWebhook(payload)
  if (vendor === 'r' && version === 'tp2') return adaptRedirect(payload)
  return {
    kind: 'failure',
    badRowKind: 'adapter_failures',
    messages: [
      {
        field: 'vendor/version',
        value: `${vendor}/${version}`,
        expectation: 'vendor/version combination is not supported',
      },
    ],
  }
}
