import { isJsonObject } from '../../../shared/index.js'
import type { CanonicalField, EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import { isPojoField, pojoValue, type PojoValue } from './event-pojo.js'
import {
  isDirectPath,
  jsonPathProblem,
  largerThan,
  normalisedSelection,
  selectAll,
  selectionKeepingTexts,
  selectKeepingTexts,
  INLINE_VALUES,
  type OffloadedSelect,
} from './json-path-selection.js'

/**
 * The inputs of the SQL query and API request enrichments, as Enrich reads them: a field of the
 * event (`pojo`), or a JSONPath into the first entity of `unstruct_event`, `contexts` or
 * `derived_contexts` whose schema matches a criterion (`json`). The configuration is checked once,
 * when it is loaded: an unknown field, a bad criterion or a JSONPath that will not compile stops
 * start-up (Enrich would fail every event instead).
 */

export type EntityField = 'unstruct_event' | 'contexts' | 'derived_contexts'
const ENTITY_FIELDS: readonly EntityField[] = ['derived_contexts', 'contexts', 'unstruct_event']

/** `iglu:vendor/name/format/M-R-A`, each of M, R and A a number or `*`. */
export interface SchemaCriterion {
  readonly prefix: string
  readonly version: readonly (number | null)[]
}

export type LookupInput =
  | { readonly kind: 'pojo'; readonly field: CanonicalField }
  | {
      readonly kind: 'json'
      readonly field: EntityField
      readonly criterion: SchemaCriterion
      readonly path: string
    }

/** What an input found: a value, or nothing (the event has no such field or entity). */
export type InputValue =
  | { readonly kind: 'pojo'; readonly value: PojoValue }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'missing' }

const CRITERION =
  /^iglu:([a-zA-Z0-9\-_.]+\/[a-zA-Z0-9\-_]+\/[a-zA-Z0-9\-_]+)\/(\d+|\*)-(\d+|\*)-(\d+|\*)$/

export function parseSchemaCriterion(text: string): SchemaCriterion | null {
  const match = CRITERION.exec(text)
  if (match === null) return null
  return {
    prefix: `iglu:${match[1]}/`,
    version: [match[2], match[3], match[4]].map((p) => (p === '*' ? null : Number(p))),
  }
}

export function matchesCriterion(uri: string, criterion: SchemaCriterion): boolean {
  if (!uri.startsWith(criterion.prefix)) return false
  const version = uri.slice(criterion.prefix.length).split('-')
  return (
    version.length === 3 &&
    criterion.version.every((want, at) => want === null || String(want) === version[at])
  )
}

/**
 * The configured inputs, checked. `keyOf` names each input's key (its placeholder or key) for
 * the messages; problems are pushed to `problems`, each naming the input.
 */
export function parseLookupInputs(
  raw: unknown,
  label: (entry: Record<string, unknown>, at: number) => string,
  problems: string[],
): LookupInput[] {
  if (!Array.isArray(raw)) {
    problems.push('parameters.inputs must be an array')
    return []
  }
  const inputs: LookupInput[] = []
  raw.forEach((entry: unknown, at) => {
    if (!isJsonObject(entry)) return void problems.push(`parameters.inputs[${at}] is not an object`)
    const where = `parameters.inputs[${at}] (${label(entry, at)})`
    const { pojo, json } = entry
    if ((pojo === undefined) === (json === undefined))
      return void problems.push(`${where}: give exactly one of pojo and json`)
    if (pojo !== undefined) {
      if (!isJsonObject(pojo)) return void problems.push(`${where}: pojo must be an object`)
      const field = String(pojo.field)
      if (!isPojoField(field))
        return void problems.push(
          `${where}: pojo.field ${JSON.stringify(field)} is not a field of the enriched event (use its atomic name, such as user_id)`,
        )
      inputs.push({ kind: 'pojo', field })
      return
    }
    if (!isJsonObject(json)) return void problems.push(`${where}: json must be an object`)
    const field = json.field as EntityField
    if (!ENTITY_FIELDS.includes(field))
      return void problems.push(
        `${where}: json.field must be one of ${ENTITY_FIELDS.join(', ')}, not ${JSON.stringify(json.field)}`,
      )
    const criterion = parseSchemaCriterion(String(json.schemaCriterion))
    if (criterion === null)
      return void problems.push(
        `${where}: json.schemaCriterion ${JSON.stringify(json.schemaCriterion)} is not iglu:vendor/name/format/M-R-A (each of M, R, A a number or *)`,
      )
    const path = String(json.jsonPath)
    const problem = jsonPathProblem(path)
    if (problem !== null)
      return void problems.push(`${where}: json.jsonPath ${JSON.stringify(path)}: ${problem}`)
    inputs.push({ kind: 'json', field, criterion, path })
  })
  return inputs
}

/** The entities of one of the event's entity fields, in the order the event holds them. */
export function entitiesOf(event: EnrichedEvent, field: EntityField): readonly SelfDescribing[] {
  if (field === 'contexts') return event.contexts
  if (field === 'derived_contexts') return event.derivedContexts
  return event.unstructEvent === null ? [] : [event.unstructEvent]
}

/** What one input finds in the event. Derived contexts are searched newest first, as in Enrich. */
export function readInput(
  event: EnrichedEvent,
  input: LookupInput,
  preselected?: ReadonlyMap<LookupInput, readonly unknown[]>,
): InputValue {
  if (input.kind === 'pojo') {
    const value = pojoValue(event, input.field)
    return value === null ? { kind: 'missing' } : { kind: 'pojo', value }
  }
  const entity = entityOf(event, input)
  if (entity === undefined) return { kind: 'missing' }
  // Numbers a double rounds are read as written when the event holds any (one flag to look at).
  const found =
    preselected?.get(input) ??
    (event.entitiesKeepWrittenNumbers ? selectKeepingTexts : selectAll)(input.path, entity.data)
  return { kind: 'json', value: normalisedSelection(found) }
}

function entityOf(
  event: EnrichedEvent,
  input: Extract<LookupInput, { kind: 'json' }>,
): SelfDescribing | undefined {
  return entitiesOf(event, input.field).find((e) => matchesCriterion(e.schema, input.criterion))
}

/**
 * What the inputs whose JSONPath would walk a large entity select, found off the event loop
 * (`offload`, the costly-work pool) before the inputs are read; the others are read in place.
 * Rejects with the reason when a selection could not be made.
 */
export async function preselectInputs(
  event: EnrichedEvent,
  inputs: readonly LookupInput[],
  offload: OffloadedSelect | undefined,
): Promise<ReadonlyMap<LookupInput, readonly unknown[]>> {
  const selected = new Map<LookupInput, readonly unknown[]>()
  if (offload === undefined) return selected
  for (const input of inputs) {
    if (input.kind !== 'json' || isDirectPath(input.path)) continue
    const entity = entityOf(event, input)
    if (entity === undefined || !largerThan(entity.data, INLINE_VALUES)) continue
    const [found] = await offload([input.path], JSON.stringify(entity.data))
    if (found === undefined || !found.ok) throw new Error(found?.error ?? 'no selection')
    selected.set(input, selectionKeepingTexts(found.found))
  }
  return selected
}
