import { isIgluUri, isJsonObject } from '../../shared/index.js'
import type { CollectorPayload } from './collector-payload.js'
import { decodeQueryString } from './query-string.js'
import {
  MAX_EVENTS_PER_PAYLOAD,
  parseJson,
  queryMap,
  rawEvent,
  unstructEvent,
  type AdapterOutcome,
} from './raw-event-parts.js'

const TRACKER_VERSION = 'com.snowplowanalytics.iglu-v1'
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8']
const FORM_TYPE = 'application/x-www-form-urlencoded'
/** Query parameters an event keeps besides its data. */
const PASSED_THROUGH = ['nuid', 'aid', 'cv', 'eid', 'ttm', 'url']
/** Query parameters that are not the data of an event given by the query string alone. */
const NOT_DATA = new Set(['schema', 'nuid', 'aid', 'cv', 'p'])

const failure = (...messages: unknown[]): AdapterOutcome => ({
  kind: 'failure',
  badRowKind: 'adapter_failures',
  messages,
})
const expected = (types: readonly string[]) => `expected one of ${types.join(', ')}`

/** The reason an Iglu URI does not parse, as iglu-core's codes name it. */
function uriProblem(uri: string): string | null {
  if (isIgluUri(uri)) return null
  return /^iglu:[^/]+\/[^/]+\/[^/]+\/[^/]+$/.test(uri) ? 'INVALID_SCHEMAVER' : 'INVALID_IGLUURI'
}

/** Why a value is not self-describing JSON, in iglu-core's codes, or null. */
function notSelfDescribing(value: unknown): string | null {
  if (!isJsonObject(value) || typeof value.schema !== 'string' || !('data' in value))
    return 'INVALID_DATA_PAYLOAD'
  return uriProblem(value.schema)
}

/**
 * `com.snowplowanalytics.iglu/v1`, Enrich's Iglu webhook: a self-describing event named by `schema`
 * in the query string, its data the remaining query parameters (no body), the JSON body (an object,
 * or each element of an array) or the form body's fields (platform `srv`); without `schema`, the
 * body is a self-describing JSON. A body needs a content type: JSON, or a form when `schema` is given.
 */
export function adaptIgluWebhook(payload: CollectorPayload): AdapterOutcome {
  const query = queryMap(payload)
  const body = payload.body === null || payload.body === '' ? null : payload.body
  const contentType = payload.contentType
  const schema = query.get('schema') ?? null
  const event = (eventSchema: string, data: unknown, platform: string) => {
    const parameters = new Map<string, string | null>([
      ['tv', TRACKER_VERSION],
      ['e', 'ue'],
      ['p', query.get('p') ?? platform],
      ['ue_pr', unstructEvent(eventSchema, data)],
    ])
    for (const name of PASSED_THROUGH)
      if (query.has(name)) parameters.set(name, query.get(name) ?? null)
    return rawEvent(payload, parameters)
  }

  if (body !== null && contentType === null)
    return failure({
      field: 'contentType',
      value: null,
      expectation: expected([...JSON_TYPES, FORM_TYPE]),
    })
  if (schema === null) {
    if (body === null)
      return failure(
        { field: 'schema', value: null, expectation: 'empty `schema` field' },
        { field: 'body', value: null, expectation: 'empty body' },
      )
    if (!JSON_TYPES.includes(contentType ?? ''))
      return failure({
        field: 'contentType',
        value: contentType,
        expectation: expected(JSON_TYPES),
      })
    const parsed = parseJson(body)
    if (!parsed.ok) return failure({ field: 'body', value: body, error: parsed.error })
    const problem = notSelfDescribing(parsed.value)
    if (problem !== null || !isJsonObject(parsed.value))
      return failure({ json: parsed.value, error: problem })
    return {
      kind: 'events',
      events: [event(String(parsed.value.schema), parsed.value.data, 'app')],
    }
  }

  const problem = uriProblem(schema)
  if (problem !== null) return failure({ field: 'schema', value: schema, expectation: problem })
  if (body === null) {
    const data: Record<string, string | null> = {}
    for (const [name, value] of query)
      if (!NOT_DATA.has(name)) data[name] = value === '' ? null : value
    return { kind: 'events', events: [event(schema, data, 'app')] }
  }
  if (JSON_TYPES.includes(contentType ?? '')) {
    const parsed = parseJson(body)
    if (!parsed.ok) return failure({ field: 'body', value: body, error: parsed.error })
    const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
    if (Array.isArray(parsed.value) && items.length === 0)
      return failure({ field: 'body', value: body, expectation: 'empty array of events' })
    if (items.length > MAX_EVENTS_PER_PAYLOAD)
      return { kind: 'too-many-events', count: items.length }
    if (
      !Array.isArray(parsed.value) &&
      !(isJsonObject(parsed.value) && Object.keys(parsed.value).length > 0)
    )
      return failure({ field: 'body', value: body, expectation: 'has no key-value pairs' })
    return { kind: 'events', events: items.map((item) => event(schema, item, 'app')) }
  }
  if (contentType === FORM_TYPE) {
    const fields = decodeQueryString(body)
    if (fields === null)
      return failure({
        field: 'body',
        value: body,
        expectation: 'could not parse the form body: malformed percent-encoding',
      })
    const data = Object.fromEntries(fields.map((field) => [field.name, field.value ?? '']))
    return { kind: 'events', events: [event(schema, data, 'srv')] }
  }
  return failure({
    field: 'contentType',
    value: contentType,
    expectation: expected([...JSON_TYPES, FORM_TYPE]),
  })
}
