import {
  exactJsonText,
  keepsWrittenNumbers,
  parseJsonExactly,
  RoundedNumberText,
  writtenNumberAt,
} from '../../../iglu/index.js'
import { isJsonObject } from '../../../shared/index.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import { javaDouble } from '../java-doubles.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import { createLookupCache, type LookupResult } from './lookup-cache.js'
import { parseCacheSettings, parseLookupOutputSchema, type CacheSettings } from './lookup-config.js'
import {
  INLINE_VALUES,
  isDirectPath,
  jsonPathProblem,
  largerThan,
  placeSelection,
  selectAll,
  selectionKeepingTexts,
  selectKeepingTexts,
  type OffloadedSelect,
} from './json-path-selection.js'
import { parseLookupInputs, preselectInputs, readInput, type LookupInput } from './lookup-inputs.js'

/**
 * The API request enrichment (`api_request_enrichment_config`), as Enrich runs it: the inputs,
 * as text, fill the URI's `{{key}}` templates (and make the body of a POST or PUT); each output's
 * JSONPath picks an entity out of the JSON answer. Any missing input, or a template left unfilled,
 * means no request at all. The request itself is sent by `send`, given by the caller.
 */

export const API_REQUEST_IDENTIFIER = 'api-request'

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT'
  readonly url: string
  /** The inputs as a JSON object of text, for POST and PUT. */
  readonly body: string | null
  readonly timeoutMs: number
  readonly basicAuth: { readonly username: string; readonly password: string } | null
}

/** Sends a request; resolves with the answer's status and text, rejects with a message the failure quotes. */
export type SendRequest = (request: ApiRequest) => Promise<{ status: number; text: string }>

export interface ApiRequestConfig {
  readonly schemaKey: string
  readonly inputs: readonly { readonly key: string; readonly input: LookupInput }[]
  readonly method: ApiRequest['method']
  readonly uri: string
  readonly timeoutMs: number
  readonly basicAuth: ApiRequest['basicAuth']
  readonly outputs: readonly { readonly schema: string; readonly path: string }[]
  readonly cache: CacheSettings
  readonly ignoreOnError: boolean
}

const METHODS: readonly ApiRequest['method'][] = ['GET', 'POST', 'PUT']
/** How much of the answer a "value not found" message quotes. */
const QUOTED_ANSWER_CHARS = 300

/** A value found in an entity, as Enrich writes it into a URI: arrays joined with commas, objects as JSON. */
export function inputText(value: unknown): string {
  if (typeof value === 'string') return value
  // A number a double rounds, as written (Enrich reads it as a BigDecimal).
  if (value instanceof RoundedNumberText) return value.text
  if (Array.isArray(value))
    return value
      .map((item: unknown, at) =>
        typeof item === 'number' ? (writtenNumberAt(value, at) ?? String(item)) : inputText(item),
      )
      .join(',')
  if (value === null || typeof value !== 'object') return String(value)
  return exactJsonText(value)
}

function readText(
  event: EnrichedEvent,
  input: LookupInput,
  preselected?: ReadonlyMap<LookupInput, readonly unknown[]>,
): string | null {
  const found = readInput(event, input, preselected)
  if (found.kind === 'missing') return null
  if (found.kind === 'json') return inputText(found.value)
  const { type, value } = found.value
  return type === 'double' ? javaDouble(value) : String(value)
}

/** Java's URLEncoder: letters, digits and `.-*_` kept, a space `+`, every other UTF-8 byte `%XX`. */
export function javaUrlEncode(text: string): string {
  // Java writes a lone surrogate as `?`; encodeURIComponent would throw.
  return encodeURIComponent(text.replace(/\p{Cs}/gu, '?'))
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')
}

/** The URI with each `{{key}}` filled; null when a brace is left (a template no input fills). */
export function filledUri(template: string, values: ReadonlyMap<string, string>): string | null {
  let uri = template
  for (const [key, value] of values)
    uri = uri.replace(new RegExp(`\\{\\{ *${key} *\\}\\}`, 'g'), () => javaUrlEncode(value))
  return /[{}]/.test(uri) ? null : uri
}

/** `api_request_enrichment_config`'s parameters, checked; problems name their parameter. */
export function parseApiRequestConfig(
  schemaKey: string,
  p: Record<string, unknown>,
  problems: string[],
): ApiRequestConfig | null {
  const before = problems.length
  const raw = Array.isArray(p.inputs) ? p.inputs : []
  const inputs = parseLookupInputs(p.inputs, (e) => `key ${String(e.key)}`, problems)
  raw.forEach((entry: unknown, at) => {
    if (
      !isJsonObject(entry) ||
      typeof entry.key !== 'string' ||
      !/^[A-Za-z0-9_-]+$/.test(entry.key)
    )
      problems.push(`parameters.inputs[${at}].key must match ^[A-Za-z0-9_-]+$`)
  })
  const http = isJsonObject(p.api) && isJsonObject(p.api.http) ? p.api.http : null
  if (http === null) problems.push('parameters.api.http must be an object')
  const method = http?.method as ApiRequest['method']
  if (!METHODS.includes(method))
    problems.push('parameters.api.http.method must be GET, POST or PUT')
  const uri = http?.uri
  if (typeof uri !== 'string' || !/^https?:\/\//i.test(uri))
    problems.push('parameters.api.http.uri must be an http:// or https:// URI')
  const timeout = http?.timeout
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 60_000)
    problems.push('parameters.api.http.timeout must be an integer from 1 to 60000 (milliseconds)')
  const auth = isJsonObject(http?.authentication) ? http.authentication : {}
  const basic = isJsonObject(auth.httpBasic) ? auth.httpBasic : null
  const outputs = (Array.isArray(p.outputs) ? p.outputs : []).map((entry: unknown, at) => {
    const output = isJsonObject(entry) ? entry : {}
    const where = `parameters.outputs[${at}]`
    const schema = parseLookupOutputSchema(output.schema, `${where}.schema`, problems)
    const path = isJsonObject(output.json) ? String(output.json.jsonPath) : ''
    const problem = jsonPathProblem(path)
    if (problem !== null)
      problems.push(`${where}.json.jsonPath ${JSON.stringify(path)}: ${problem}`)
    return { schema, path }
  })
  if (outputs.length === 0) problems.push('parameters.outputs must list at least one output')
  const cache = parseCacheSettings(p.cache, problems)
  if (problems.length > before) return null
  return {
    schemaKey,
    inputs: inputs.map((input, at) => ({
      key: String((raw[at] as Record<string, unknown>).key),
      input,
    })),
    method,
    uri: String(uri),
    timeoutMs: Number(timeout),
    // Enrich sends the header when httpBasic has a username or a password, a missing one as "".
    basicAuth:
      basic === null || (basic.username == null && basic.password == null)
        ? null
        : { username: String(basic.username ?? ''), password: String(basic.password ?? '') },
    outputs,
    cache,
    ignoreOnError: p.ignoreOnError === true,
  }
}

/** A parsed answer, with its text kept when JSONPaths must walk it off the event loop. */
export interface Answer {
  readonly json: unknown
  readonly text: string | null
  /** The length of the answer's text, by which the cache weighs it. */
  readonly length: number
}

/** How much answer text one API request enrichment's cache keeps at most (the parsed answers weigh more). */
export const CACHED_ANSWERS_MAX_CHARS = 64 * 1_048_576

/**
 * The entities of an answer, one per output; every output that finds nothing is a failure.
 * `selected` gives each output's selection when it was made elsewhere (a worker process).
 */
export function answerEntities(
  config: ApiRequestConfig,
  answer: unknown,
  selected?: readonly (readonly unknown[])[],
): SelfDescribing[] | string[] {
  const entities: SelfDescribing[] = []
  const errors: string[] = []
  // Numbers a double rounds keep their digits, even as the selection itself or an item of it.
  const keepTexts = keepsWrittenNumbers(answer)
  config.outputs.forEach(({ schema, path }, at) => {
    const offloaded = selected?.[at]
    const found =
      offloaded === undefined
        ? (keepTexts ? selectKeepingTexts : selectAll)(path, answer)
        : keepTexts
          ? selectionKeepingTexts(offloaded)
          : offloaded
    const entity: SelfDescribing = { schema, data: null }
    placeSelection(entity as unknown as Record<string, unknown>, 'data', found)
    const data = entity.data
    if (found.length === 0 || (Array.isArray(data) && data.length === 0)) {
      const quoted = quotedAnswer(answer)
      errors.push(
        `API Request enrichment:Value not found Error: no values were found by JSON Path [${path}] in [${quoted}]`,
      )
    } else entities.push(entity)
  })
  return errors.length > 0 ? errors : entities
}

/** The start of an answer's compact JSON, without writing out a large one whole. */
function quotedAnswer(answer: unknown): string {
  const quoted = largerThan(answer, INLINE_VALUES)
    ? JSON.stringify(answer, (_key, value: unknown) => firstFew(value))
    : JSON.stringify(answer)
  return quoted.length > QUOTED_ANSWER_CHARS ? `${quoted.slice(0, QUOTED_ANSWER_CHARS)}…` : quoted
}

/** A large array or object cut to its first members, enough for a quote. */
function firstFew(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 20 ? value.slice(0, 20) : value
  if (value === null || typeof value !== 'object') return value
  const kept: Record<string, unknown> = {}
  let count = 0
  for (const key in value) {
    if (++count > 20) break
    kept[key] = (value as Record<string, unknown>)[key]
  }
  return kept
}

/** Each output's selection in a large answer, made off the event loop; null when none needs it. */
async function offloadedOutputs(
  config: ApiRequestConfig,
  answer: Answer,
  offload: OffloadedSelect | undefined,
): Promise<(readonly unknown[])[] | null> {
  if (offload === undefined || answer.text === null) return null
  const selections = await offload(
    config.outputs.map((o) => o.path),
    answer.text,
  )
  return selections.map((selection) => {
    if (!selection.ok) throw new Error(selection.error)
    return selection.found
  })
}

/** The request for an event, or null when an input is missing or the URI keeps a template. */
export function requestFor(
  config: ApiRequestConfig,
  event: EnrichedEvent,
  preselected?: ReadonlyMap<LookupInput, readonly unknown[]>,
): ApiRequest | null {
  const values = new Map<string, string>()
  for (const { key, input } of config.inputs) {
    const text = readText(event, input, preselected)
    if (text === null) return null
    values.set(key, text)
  }
  const url = filledUri(config.uri, values)
  if (url === null) return null
  return {
    method: config.method,
    url,
    body: config.method === 'GET' ? null : JSON.stringify(Object.fromEntries(values)),
    timeoutMs: config.timeoutMs,
    basicAuth: config.basicAuth,
  }
}

/**
 * The step: the outputs' entities go first in derived_contexts; each failing output is a failure.
 * JSONPaths that would walk a large entity or answer run through `offload` (a worker process).
 */
export function createApiRequestStep(
  config: ApiRequestConfig,
  send: SendRequest,
  now: () => number,
  offload?: OffloadedSelect,
) {
  const cache = createLookupCache<Answer>({
    ...config.cache,
    now,
    weight: { of: (answer) => answer.length, max: CACHED_ANSWERS_MAX_CHARS },
  })
  const enrichment = { schemaKey: config.schemaKey, identifier: API_REQUEST_IDENTIFIER }
  const walkingOutputs = config.outputs.some((o) => !isDirectPath(o.path))
  const fail = (failures: EnrichmentFailure[], errors: readonly string[]) => {
    if (!config.ignoreOnError)
      for (const error of errors) failures.push({ enrichment, message: { error } })
  }
  return async function apiRequestStep(
    event: EnrichedEvent,
    failures: EnrichmentFailure[],
  ): Promise<void> {
    let request: ApiRequest | null
    try {
      const preselected = await preselectInputs(
        event,
        config.inputs.map((i) => i.input),
        offload,
      )
      request = requestFor(config, event, preselected)
    } catch (error) {
      // A JSONPath that compiled at start-up can still fail on a document (a filter on a value).
      return fail(failures, [error instanceof Error ? error.message : String(error)])
    }
    if (request === null) return
    const answer = await cache.get(
      `${request.url}\n${request.body ?? ''}`,
      async (): Promise<LookupResult<Answer>> => {
        const { status, text } = await send(request)
        if (status < 200 || status > 299)
          return { ok: false, error: `Request failed with status ${status}` }
        let json: unknown
        try {
          json = parseJsonExactly(text)
        } catch (error) {
          return { ok: false, error: error instanceof Error ? error.message : String(error) }
        }
        const large = walkingOutputs && offload !== undefined && largerThan(json, INLINE_VALUES)
        return { ok: true, value: { json, text: large ? text : null, length: text.length } }
      },
    )
    if (!answer.ok) return fail(failures, [answer.error])
    let found: SelfDescribing[] | string[]
    try {
      const selected = await offloadedOutputs(config, answer.value, offload)
      found = answerEntities(config, answer.value.json, selected ?? undefined)
    } catch (error) {
      return fail(failures, [error instanceof Error ? error.message : String(error)])
    }
    if (found.every((f): f is SelfDescribing => typeof f !== 'string')) {
      event.derivedContexts.unshift(...found)
      // Numbers a double rounds keep their digits inside the entities, as Enrich's do.
      if (keepsWrittenNumbers(answer.value.json)) event.entitiesKeepWrittenNumbers = true
    } else fail(failures, found as string[])
  }
}
