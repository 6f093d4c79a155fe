import { RecentLists } from '../../shared/index.js'
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

/**
 * The events of one payload share its request context: its JSON is built once and shared (never
 * changed). It holds the context's own list of header lines, which nothing changes either. A
 * payload's events are processed one after the other, so the last context's JSON is the one kept
 * (a payload of one event, a GET request, needs no table at all; events of payloads processed in
 * between still get equal JSON, each its own).
 */
const lastContext: { context: RequestContext | null; json: ContextJson | null } = {
  context: null,
  json: null,
}

type ContextJson = ReturnType<typeof buildContextJson>

const buildContextJson = (context: RequestContext) => ({
  timestamp: instantString(context.timestamp),
  ipAddress: context.ipAddress,
  useragent: context.useragent,
  refererUri: context.refererUri,
  headers: context.headers,
  userId: context.userId,
})

function contextJson(context: RequestContext): ContextJson {
  if (lastContext.context === context && lastContext.json !== null) return lastContext.json
  const json = buildContextJson(context)
  lastContext.context = context
  lastContext.json = json
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
  parameters.forEach((value, name) => setParameter(json, name, value))
  return json
}

function setParameter(json: Record<string, string | null>, name: string, value: string | null) {
  if (name === '__proto__')
    Object.defineProperty(json, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  else json[name] = value
}

/** Micro's `rawEvent`, its parameters in the form given. */
function rawEventWith<P>(raw: RawEvent, parameters: P) {
  return {
    api: raw.api,
    parameters,
    contentType: raw.contentType,
    source: raw.source,
    context: contextJson(raw.context),
  }
}

/** Micro's `rawEvent`. */
export function rawEventJson(raw: RawEvent) {
  return rawEventWith(raw, parametersJson(raw.parameters))
}

/** The lists of parameter names most recently kept: a tracker sends a few, again and again. */
const parameterNames = new RecentLists<string>(8)

/**
 * Micro's `rawEvent.parameters` as a stored event keeps them when there are many: the values in an
 * array, beside the list of names (shared by every event that sent the same names in the same
 * order, as a tracker's events do), written as the object only when serialized (`toJSON`, so
 * `JSON.stringify` writes what `rawEventJson` gives). A browser tracker's page view has 20 to 30
 * parameters, and an object given more than 19 leaves V8's fast mode: ~1.9 kB a stored event
 * (measured), built on the collector's path, against ~0.2 kB for the values.
 */
export class KeptParameters {
  private constructor(
    private readonly names: readonly string[],
    private readonly values: readonly (string | null)[],
  ) {}

  static of(parameters: ReadonlyMap<string, string | null>): KeptParameters {
    const names = new Array<string>(parameters.size)
    const values = new Array<string | null>(parameters.size)
    let at = 0
    // `forEach`, not `for…of`: a Map's for…of makes a `[name, value]` array for every parameter.
    parameters.forEach((value, name) => {
      names[at] = name
      values[at++] = value
    })
    return new KeptParameters(parameterNames.shared(names), values)
  }

  /** The value of parameter `name` (undefined when absent). */
  get(name: string): string | null | undefined {
    const at = this.names.indexOf(name)
    return at < 0 ? undefined : this.values[at]
  }

  /** Characters of the values, for a store's estimate of the event's size. */
  get valueChars(): number {
    let chars = 0
    for (const value of this.values) chars += value?.length ?? 0
    return chars
  }

  toJSON(): Record<string, string | null> {
    const json: Record<string, string | null> = {}
    for (let at = 0; at < this.names.length; at++)
      setParameter(json, this.names[at] as string, this.values[at] ?? null)
    return json
  }
}

/** A stored event's parameters: kept compact in memory, or the object when read back from a JSON store. */
export type StoredParameters = KeptParameters | Readonly<Record<string, string | null>>

/** The value of parameter `name` of a stored event, in either form. */
export function storedParameter(
  parameters: StoredParameters,
  name: string,
): string | null | undefined {
  if (parameters instanceof KeptParameters) return parameters.get(name)
  return Object.hasOwn(parameters, name) ? parameters[name] : undefined
}

/** Parameters beyond which a stored event keeps them as `KeptParameters` rather than an object. */
const OBJECT_PARAMETERS_UP_TO = 16

/** Micro's `rawEvent` as a good event keeps it (`rawEventJson` once serialized). */
export function keptRawEvent(raw: RawEvent) {
  return rawEventWith<StoredParameters>(
    raw,
    raw.parameters.size > OBJECT_PARAMETERS_UP_TO
      ? KeptParameters.of(raw.parameters)
      : parametersJson(raw.parameters),
  )
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
