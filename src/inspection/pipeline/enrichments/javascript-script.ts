import {
  BOOLEAN_FIELDS,
  CONTEXTS_SCHEMA,
  TIMESTAMP_FIELDS,
  UNSTRUCT_SCHEMA,
  type CanonicalField,
  type EnrichedEvent,
  type SelfDescribing,
} from '../canonical-event.js'
import { igluUriParts } from '../../../shared/index.js'
import { DOUBLE_FIELDS } from '../java-doubles.js'
import { INTEGER_FIELDS, isPojoField, pojoValue, POJO_FIELDS } from './event-pojo.js'
import type { EnrichmentFailure } from './enrichment-failure.js'

/**
 * The JavaScript enrichment (`javascript_script_config`, or a `*.js` file of the enrichments
 * directory), as Enrich runs it: `process(event, config, headers)` over an event with a getter
 * and a setter per field, returning self-describing entities that become derived contexts. The
 * script itself runs in a sandbox elsewhere (a QuickJS runtime in a worker thread, with a time
 * and a memory budget); this module builds what the sandbox is given and applies what it answers.
 */

export const JAVASCRIPT_IDENTIFIER = 'Javascript enrichment'

/** The fields a script reads and sets one by one (the entity fields have JSON-text accessors). */
export const SCRIPT_FIELDS = POJO_FIELDS

/** One configured script: its source, its `parameters.config`, and a name for its runtime. */
export interface JavascriptScript {
  /** Stable for the life of the process: the sandbox keeps one runtime per id (the script's globals persist, as in Enrich). */
  readonly id: string
  readonly source: string
  /** `parameters.config`, the second argument of `process` (`{}` when absent). */
  readonly config: Record<string, unknown>
}

/** What the sandbox runs: one event through one script. */
export interface ScriptCall {
  readonly script: JavascriptScript
  /** Each field as the script reads it: timestamps `yyyy-MM-dd HH:mm:ss.SSS`, flags 0/1. */
  readonly fields: Readonly<Record<string, string | number | null>>
  readonly contexts: string | null
  readonly unstructEvent: string | null
  readonly derivedContexts: string | null
  /** The request's headers, one `Name: value` line each. */
  readonly headers: readonly string[]
}

/** What the sandbox answers. */
export type ScriptAnswer =
  | {
      readonly kind: 'returned'
      /** The JSON text of what `process` returned (`[]` for null or undefined). */
      readonly output: string
      /** The fields the script set, as it set them. */
      readonly changed: Readonly<Record<string, unknown>>
      /** Set by setContexts / setUnstruct_event (null clears); absent when not called. */
      readonly contexts?: string | null
      readonly unstructEvent?: string | null
      readonly eraseDerivedContexts: boolean
    }
  | { readonly kind: 'dropped' }
  /** A throw, a compile error, a time or memory budget spent: the message says which. */
  | { readonly kind: 'failed'; readonly message: string }

const wrapped = (schema: string, data: unknown) => JSON.stringify({ schema, data })
/** The entity lists a script reads are wrapped as Enrich wraps them: contexts 1-0-1. */
const CONTEXTS_1_0_1 = CONTEXTS_SCHEMA.replace(/1-0-0$/, '1-0-1')

/** The call for one event, as Enrich's event object shows it to a script. */
export function scriptCall(
  script: JavascriptScript,
  event: EnrichedEvent,
  headers: readonly string[],
): ScriptCall {
  const fields: Record<string, string | number | null> = {}
  for (const field of SCRIPT_FIELDS) fields[field] = pojoValue(event, field)?.value ?? null
  return {
    script,
    fields,
    contexts: event.contexts.length === 0 ? null : wrapped(CONTEXTS_1_0_1, event.contexts),
    unstructEvent:
      event.unstructEvent === null ? null : wrapped(UNSTRUCT_SCHEMA, event.unstructEvent),
    derivedContexts:
      event.derivedContexts.length === 0 ? null : wrapped(CONTEXTS_1_0_1, event.derivedContexts),
    headers,
  }
}

/** A value the script set, in the event's own form; an Error naming the setter when it cannot be. */
function fieldValue(
  field: CanonicalField,
  value: unknown,
): string | number | boolean | null | Error {
  if (value === null || value === undefined) return null
  const setter = `set${field.charAt(0).toUpperCase()}${field.slice(1)}`
  if (TIMESTAMP_FIELDS.has(field)) {
    const text = String(value).trim()
    const time = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`)
    return Number.isNaN(time) ? new Error(`${setter}: [${text}] is not a timestamp`) : time
  }
  if (BOOLEAN_FIELDS.has(field)) {
    if (value === 1 || value === true || value === '1') return true
    if (value === 0 || value === false || value === '0') return false
    return new Error(`${setter}: [${String(value)}] is not 0 or 1`)
  }
  if (INTEGER_FIELDS.has(field) || DOUBLE_FIELDS.has(field)) {
    const number = typeof value === 'number' ? value : Number(String(value))
    if (!Number.isFinite(number) || (INTEGER_FIELDS.has(field) && !Number.isInteger(number)))
      return new Error(
        `${setter}: [${String(value)}] is not ${INTEGER_FIELDS.has(field) ? 'an integer' : 'a number'}`,
      )
    return number
  }
  return typeof value === 'string' ? value : JSON.stringify(value)
}

const isSelfDescribing = (value: unknown): value is SelfDescribing =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  typeof (value as { schema?: unknown }).schema === 'string' &&
  igluUriParts((value as { schema: string }).schema) !== null &&
  'data' in value

/** Circe's default print, which Enrich's message quotes: two-space indent, `"key" : value`. */
const circeText = (value: unknown) =>
  JSON.stringify(value, null, 2).replace(/^(\s*"(?:[^"\\]|\\.)*"):/gm, '$1 :')

/** The entities a script returned, or the message Enrich gives for anything else. */
export function returnedEntities(output: string): SelfDescribing[] | string {
  let value: unknown
  try {
    value = JSON.parse(output)
  } catch (error) {
    return `Could not parse output JSON of Javascript function. Error: [invalid json: ${error instanceof Error ? error.message : String(error)}]`
  }
  if (!Array.isArray(value))
    return `Output of JavaScript function [${circeText(value)}] could be parsed as JSON but is not read as an array`
  const wrong = value.filter((item) => !isSelfDescribing(item))
  if (wrong.length > 0)
    return `Resulting contexts are not self-desribing. Error(s): [${wrong
      .map((item) => `error code:[INVALID_DATA_PAYLOAD],json:[${JSON.stringify(item)}]`)
      .join(';')}]`
  return value as SelfDescribing[]
}

/** An entity list as setContexts takes it: `{schema, data: [entities]}`; an Error otherwise. */
function entityList(text: string): SelfDescribing[] | Error {
  try {
    const value: unknown = JSON.parse(text)
    const data = (value as { data?: unknown } | null)?.data
    if (Array.isArray(data) && data.every(isSelfDescribing)) return data
  } catch {
    // refused below
  }
  return new Error('invalid contexts json')
}

function unstructEvent(text: string): SelfDescribing | Error {
  try {
    const value: unknown = JSON.parse(text)
    const data = (value as { data?: unknown } | null)?.data
    if (isSelfDescribing(data)) return data
  } catch {
    // refused below
  }
  return new Error('invalid unstruct_event json')
}

/**
 * Applies a script's answer to the event: the fields it set, the entities it replaced, and the
 * entities it returned, put before the derived contexts of the enrichments before it (or instead
 * of them, after `eraseDerived_contexts()`). Returns `dropped`, or the failure to report.
 */
export function applyScriptAnswer(
  event: EnrichedEvent,
  answer: ScriptAnswer,
  enrichment: { readonly schemaKey: string },
): 'dropped' | EnrichmentFailure | null {
  const failure = (error: string): EnrichmentFailure => ({
    enrichment: { schemaKey: enrichment.schemaKey, identifier: JAVASCRIPT_IDENTIFIER },
    message: { error },
  })
  if (answer.kind === 'dropped') return 'dropped'
  if (answer.kind === 'failed') return failure(answer.message)
  const problems: string[] = []
  for (const [field, value] of Object.entries(answer.changed)) {
    if (!isPojoField(field)) continue
    const converted = fieldValue(field as CanonicalField, value)
    if (converted instanceof Error) problems.push(converted.message)
    else event.fields[field as CanonicalField] = converted
  }
  if (answer.contexts !== undefined) {
    const list = answer.contexts === null ? [] : entityList(answer.contexts)
    if (list instanceof Error) problems.push(list.message)
    else event.contexts = list
  }
  if (answer.unstructEvent !== undefined) {
    const value = answer.unstructEvent === null ? null : unstructEvent(answer.unstructEvent)
    if (value instanceof Error) problems.push(value.message)
    else event.unstructEvent = value
  }
  if (problems.length > 0)
    return failure(`Error during execution of JavaScript function: [${problems.join('; ')}]`)
  const entities = returnedEntities(answer.output)
  if (typeof entities === 'string') return failure(entities)
  event.derivedContexts = answer.eraseDerivedContexts
    ? [...entities]
    : [...entities, ...event.derivedContexts]
  return null
}
