import { instantString } from './canonical-event.js'

/** What the collector recorded about one HTTP request. */
export interface RequestContext {
  /** Collector time, epoch milliseconds. */
  readonly timestamp: number
  readonly ipAddress: string | null
  readonly useragent: string | null
  readonly refererUri: string | null
  /** `"Name: value"` strings, with the bare content type last when there is one. */
  readonly headers: readonly string[]
  /** The network user id (nuid). */
  readonly userId: string | null
}

export interface PayloadSource {
  readonly name: string
  readonly encoding: string
  readonly hostname: string | null
}

export interface ApiPath {
  readonly vendor: string
  readonly version: string
}

export interface QueryPair {
  readonly name: string
  readonly value: string | null
}

/** One collector request, as the loader types it. */
export interface CollectorPayload {
  readonly api: ApiPath
  readonly querystring: readonly QueryPair[]
  readonly contentType: string | null
  readonly body: string | null
  readonly source: PayloadSource
  readonly context: RequestContext
}

/** One event extracted by an adapter: tracker-protocol parameters, last value wins. */
export interface RawEvent {
  readonly api: ApiPath
  readonly parameters: ReadonlyMap<string, string | null>
  readonly contentType: string | null
  readonly source: PayloadSource
  readonly context: RequestContext
}

/** The events of one payload share its request context: its JSON is built once and shared (never changed). */
const contextJsons = new WeakMap<RequestContext, ReturnType<typeof buildContextJson>>()

const buildContextJson = (context: RequestContext) => ({
  timestamp: instantString(context.timestamp),
  ipAddress: context.ipAddress,
  useragent: context.useragent,
  refererUri: context.refererUri,
  headers: [...context.headers],
  userId: context.userId,
})

function contextJson(context: RequestContext): ReturnType<typeof buildContextJson> {
  let json = contextJsons.get(context)
  if (json === undefined) {
    json = buildContextJson(context)
    contextJsons.set(context, json)
  }
  return json
}

/**
 * The parameters as an object, in the map's order. A loop of assignments: `Object.fromEntries` costs
 * about 5× more here. A parameter named `__proto__` is defined, not assigned, so it stays a parameter.
 */
function parametersJson(
  parameters: ReadonlyMap<string, string | null>,
): Record<string, string | null> {
  const json: Record<string, string | null> = {}
  for (const [name, value] of parameters) {
    if (name === '__proto__')
      Object.defineProperty(json, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else json[name] = value
  }
  return json
}

/** Micro's `rawEvent`. */
export function rawEventJson(raw: RawEvent) {
  return {
    api: raw.api,
    parameters: parametersJson(raw.parameters),
    contentType: raw.contentType,
    source: raw.source,
    context: contextJson(raw.context),
  }
}

/** Micro's `collectorPayload` in a bad event: the query string as `name=value` strings. */
export function collectorPayloadJson(payload: CollectorPayload) {
  return {
    api: payload.api,
    querystring: payload.querystring.map((p) =>
      p.value === null ? p.name : `${p.name}=${p.value}`,
    ),
    contentType: payload.contentType,
    body: payload.body,
    source: payload.source,
    context: contextJson(payload.context),
  }
}

/** The loader and request fields both bad-row payload objects carry. */
function badRowRequestFields(source: PayloadSource, context: RequestContext) {
  return {
    encoding: source.encoding,
    hostname: source.hostname,
    timestamp: new Date(context.timestamp).toISOString(),
    ipAddress: context.ipAddress,
    useragent: context.useragent,
    refererUri: context.refererUri,
    headers: [...context.headers],
  }
}

/** The bad-row `CollectorPayload` object (adapter failures, tracker protocol violations). */
export function badRowCollectorPayload(payload: CollectorPayload) {
  return {
    vendor: payload.api.vendor,
    version: payload.api.version,
    querystring: payload.querystring.map((p) => ({ name: p.name, value: p.value })),
    contentType: payload.contentType,
    body: payload.body,
    collector: payload.source.name,
    ...badRowRequestFields(payload.source, payload.context),
    networkUserId: payload.context.userId,
  }
}

/** The bad-row `RawEvent` object (schema violations, enrichment failures). */
export function badRowRawEvent(raw: RawEvent) {
  return {
    vendor: raw.api.vendor,
    version: raw.api.version,
    parameters: [...raw.parameters].map(([name, value]) => ({ name, value })),
    contentType: raw.contentType,
    loaderName: raw.source.name,
    ...badRowRequestFields(raw.source, raw.context),
    userId: raw.context.userId,
  }
}
