import {
  keepsWrittenNumbers,
  markWrittenNumbers,
  placeValue,
  RoundedNumberText,
} from '../../../iglu/index.js'
import { isJsonObject } from '../../../shared/index.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import { createLookupCache, type LookupResult } from './lookup-cache.js'
import type { OffloadedSelect } from './json-path-selection.js'
import { parseLookupInputs, preselectInputs, readInput, type LookupInput } from './lookup-inputs.js'
import { parseLookupOutputSchema, parseCacheSettings, type CacheSettings } from './lookup-config.js'

/**
 * The SQL query enrichment (`sql_query_enrichment_config`), as Enrich runs it: the inputs fill
 * the query's `?` placeholders, and the rows become entities. It runs only when every placeholder
 * 1..N has a value and the query has exactly N of them; otherwise it does nothing. The database
 * itself is reached through `query`, given by the caller (a PostgreSQL pool).
 */

export const SQL_QUERY_IDENTIFIER = 'sql-query'

export type ExpectedRows = 'AT_LEAST_ONE' | 'AT_LEAST_ZERO' | 'AT_MOST_ONE' | 'EXACTLY_ONE'
export type PropertyNames =
  'AS_IS' | 'CAMEL_CASE' | 'PASCAL_CASE' | 'SNAKE_CASE' | 'LOWER_CASE' | 'UPPER_CASE'

/** A value bound to a placeholder, with the type Enrich binds it as. */
export type BoundValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'int' | 'long' | 'double' | 'float' | 'byte'; readonly value: number }
  | { readonly type: 'long'; readonly value: string }
  | { readonly type: 'boolean'; readonly value: boolean }

/** Rows as the database answered them: column labels in order, and each row's JSON values. */
export interface QueryRows {
  readonly columns: readonly string[]
  readonly rows: readonly (readonly unknown[])[]
}

export interface SqlQueryConfig {
  readonly schemaKey: string
  readonly inputs: readonly { readonly placeholder: number; readonly input: LookupInput }[]
  /** The query with its `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …). */
  readonly sql: string
  readonly placeholders: number
  readonly expectedRows: ExpectedRows
  readonly outputSchema: string
  readonly propertyNames: PropertyNames
  readonly describes: 'ALL_ROWS' | 'EVERY_ROW'
  readonly cache: CacheSettings
  readonly ignoreOnError: boolean
}

export const EXPECTED_ROWS: readonly ExpectedRows[] = [
  'AT_LEAST_ONE',
  'AT_LEAST_ZERO',
  'AT_MOST_ONE',
  'EXACTLY_ONE',
]
export const PROPERTY_NAMES: readonly PropertyNames[] = [
  'AS_IS',
  'CAMEL_CASE',
  'PASCAL_CASE',
  'SNAKE_CASE',
  'LOWER_CASE',
  'UPPER_CASE',
]

/**
 * JDBC's `?` placeholders numbered as PostgreSQL wants them, outside string literals, quoted
 * names, comments and dollar quotes; `??` stands for a literal `?` (an operator), as in pgJDBC.
 */
export function numberPlaceholders(sql: string): { readonly text: string; readonly count: number } {
  let out = ''
  let count = 0
  let at = 0
  while (at < sql.length) {
    const c = sql[at]!
    const rest = sql.slice(at)
    const quoted =
      c === "'" || c === '"'
        ? new RegExp(`^${c}(?:[^${c}]|${c}${c})*(?:${c}|$)`).exec(rest)
        : rest.startsWith('--')
          ? /^--[^\n]*/.exec(rest)
          : rest.startsWith('/*')
            ? /^\/\*[\s\S]*?(?:\*\/|$)/.exec(rest)
            : c === '$'
              ? /^(\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)[\s\S]*?(?:\1|$)/.exec(rest)
              : null
    if (quoted !== null && quoted[0].length > 1) {
      out += quoted[0]
      at += quoted[0].length
    } else if (rest.startsWith('??')) {
      out += '?'
      at += 2
    } else if (c === '?') {
      out += `$${++count}`
      at += 1
    } else {
      out += c
      at += 1
    }
  }
  return { text: out, count }
}

const INT32 = [-(2 ** 31), 2 ** 31 - 1] as const
const DOUBLE_TEXT = /^\s*[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)\s*$/

/** A value found in an entity, as Enrich binds it: text that reads as a number or a boolean is bound as one. */
export function boundJsonValue(value: unknown): BoundValue | null {
  if (typeof value === 'boolean') return { type: 'boolean', value }
  // A number a double rounds, as written: a long when it is one, else its double.
  if (value instanceof RoundedNumberText) {
    const long = /^-?\d+$/.test(value.text) ? BigInt(value.text) : null
    return long !== null && long >= -(2n ** 63n) && long < 2n ** 63n
      ? { type: 'long', value: long.toString() }
      : { type: 'double', value: Number(value.text) }
  }
  if (typeof value === 'number') {
    // int32, else int64, else double (circe's toInt, toLong, toDouble in turn).
    if (!Number.isInteger(value) || value < -(2 ** 63) || value >= 2 ** 63)
      return { type: 'double', value }
    return { type: value >= INT32[0] && value <= INT32[1] ? 'int' : 'long', value }
  }
  if (typeof value !== 'string') return null
  if (/^[+-]?\d+$/.test(value)) {
    const big = BigInt(value)
    if (big >= BigInt(INT32[0]) && big <= BigInt(INT32[1]))
      return { type: 'int', value: Number(big) }
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return { type: 'long', value: big.toString() }
  }
  if (DOUBLE_TEXT.test(value)) {
    const text = value.trim().replace(/[fFdD]$/, '')
    return { type: 'double', value: Number(text) }
  }
  if (/^(?:true|false)$/i.test(value))
    return { type: 'boolean', value: value.toLowerCase() === 'true' }
  return { type: 'string', value }
}

/** The value of one input for its placeholder, or null when it is missing (no value, null, an object or an array). */
function boundValue(
  event: EnrichedEvent,
  input: LookupInput,
  preselected?: ReadonlyMap<LookupInput, readonly unknown[]>,
): BoundValue | null {
  const found = readInput(event, input, preselected)
  if (found.kind === 'missing') return null
  if (found.kind === 'json') return boundJsonValue(found.value)
  const { type, value } = found.value
  if (type === 'string') return { type, value }
  if (type === 'integer') return { type: 'int', value }
  if (type === 'flag') return { type: 'byte', value }
  return { type: 'double', value }
}

export function propertyName(column: string, rule: PropertyNames): string {
  const camel = () => column.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
  switch (rule) {
    case 'AS_IS':
      return column
    case 'CAMEL_CASE':
      return camel()
    case 'PASCAL_CASE': {
      const name = camel()
      return name.charAt(0).toUpperCase() + name.slice(1)
    }
    case 'SNAKE_CASE':
      return column.replace(/[A-Z0-9]/g, (c) => `_${c.toLowerCase()}`)
    case 'LOWER_CASE':
      return column.toLowerCase()
    case 'UPPER_CASE':
      return column.toUpperCase()
  }
}

/** The entities of a query's rows, or the failure of a row count the configuration does not expect. */
export function rowEntities(
  config: SqlQueryConfig,
  answer: QueryRows,
): LookupResult<SelfDescribing[]> {
  const count = answer.rows.length
  const { expectedRows: expected } = config
  if (expected === 'EXACTLY_ONE' && count !== 1)
    return { ok: false, error: 'SQL Query Enrichment: exactly one row was expected' }
  if (expected === 'AT_MOST_ONE' && count > 1)
    return { ok: false, error: 'SQL Query Enrichment: at most one row was expected' }
  if (expected === 'AT_LEAST_ONE' && count === 0)
    return {
      ok: false,
      error: 'SQL Query Enrichment: at least one row was expected. 0 given instead',
    }
  const names = answer.columns.map((c) => propertyName(c, config.propertyNames))
  // A bigint or numeric that a double rounds keeps its digits (RoundedNumberText from the database):
  // its entity is then marked, so that the event is written with them.
  let keptAsWritten = false
  const objects = answer.rows.map((row) => {
    const object: Record<string, unknown> = {}
    names.forEach((name, at) => {
      if (placeValue(object, name, row[at] ?? null)) keptAsWritten = true
    })
    return object
  })
  const entity = (data: unknown) => {
    const made = { schema: config.outputSchema, data }
    if (keptAsWritten) markWrittenNumbers(made)
    return made
  }
  if (config.describes === 'EVERY_ROW') return { ok: true, value: objects.map(entity) }
  if (expected === 'AT_LEAST_ONE' || expected === 'AT_LEAST_ZERO')
    return { ok: true, value: [entity(objects)] }
  return { ok: true, value: objects.length === 0 ? [] : [entity(objects[0])] }
}

/** `sql_query_enrichment_config`'s parameters, checked; problems name their parameter. */
export function parseSqlQueryConfig(
  schemaKey: string,
  p: Record<string, unknown>,
  problems: string[],
): SqlQueryConfig | null {
  const before = problems.length
  const raw = Array.isArray(p.inputs) ? p.inputs : []
  const lookups = parseLookupInputs(
    p.inputs,
    (e) => `placeholder ${String(e.placeholder)}`,
    problems,
  )
  raw.forEach((entry: unknown, at) => {
    const placeholder = isJsonObject(entry) ? entry.placeholder : undefined
    if (typeof placeholder !== 'number' || !Number.isInteger(placeholder) || placeholder < 1)
      problems.push(`parameters.inputs[${at}].placeholder must be an integer ≥ 1`)
  })
  const query = isJsonObject(p.query) ? p.query : {}
  if (typeof query.sql !== 'string') problems.push('parameters.query.sql must be a string')
  const numbered = numberPlaceholders(String(query.sql ?? ''))
  const output = isJsonObject(p.output) ? p.output : {}
  const json = isJsonObject(output.json) ? output.json : {}
  const expectedRows = output.expectedRows as ExpectedRows
  if (!EXPECTED_ROWS.includes(expectedRows))
    problems.push(`parameters.output.expectedRows must be one of ${EXPECTED_ROWS.join(', ')}`)
  const propertyNames = json.propertyNames as PropertyNames
  if (!PROPERTY_NAMES.includes(propertyNames))
    problems.push(
      `parameters.output.json.propertyNames must be one of ${PROPERTY_NAMES.join(', ')}`,
    )
  const describes = json.describes === 'EVERY_ROW' ? 'EVERY_ROW' : 'ALL_ROWS'
  if (json.describes !== 'EVERY_ROW' && json.describes !== 'ALL_ROWS')
    problems.push('parameters.output.json.describes must be ALL_ROWS or EVERY_ROW')
  const outputSchema = parseLookupOutputSchema(
    json.schema,
    'parameters.output.json.schema',
    problems,
  )
  const cache = parseCacheSettings(p.cache, problems)
  if (problems.length > before || lookups.length !== raw.length) return null
  return {
    schemaKey,
    inputs: lookups.map((input, at) => ({
      placeholder: Number((raw[at] as Record<string, unknown>).placeholder),
      input,
    })),
    sql: numbered.text,
    placeholders: numbered.count,
    expectedRows,
    outputSchema,
    propertyNames,
    describes,
    cache,
    ignoreOnError: p.ignoreOnError === true,
  }
}

/** The placeholder values in order 1..N, or null when the query does not run (a gap, or not N values). */
function placeholderValues(
  config: SqlQueryConfig,
  event: EnrichedEvent,
  preselected: ReadonlyMap<LookupInput, readonly unknown[]>,
): BoundValue[] | null {
  const byPlaceholder = new Map<number, BoundValue>()
  // A missing value never replaces a present one; among present ones the last configured wins.
  for (const { placeholder, input } of config.inputs) {
    const value = boundValue(event, input, preselected)
    if (value !== null) byPlaceholder.set(placeholder, value)
  }
  if (byPlaceholder.size !== config.placeholders) return null
  const values: BoundValue[] = []
  for (let n = 1; n <= config.placeholders; n++) {
    const value = byPlaceholder.get(n)
    if (value === undefined) return null
    values.push(value)
  }
  return values
}

/** Runs the query against the database; rejects with a message the failure quotes. */
export type RunQuery = (sql: string, values: readonly BoundValue[]) => Promise<QueryRows>

/**
 * How much one SQL query enrichment's cache keeps at most, by the JSON text of its entities: a
 * lookup reads up to 1 000 rows, and rows may hold large values, so a cache bounded by its count
 * alone (`cache.size`) could hold gigabytes.
 */
export const CACHED_ROWS_MAX_CHARS = 64 * 1_048_576

/** The step: the query's entities go first in derived_contexts; a failure is this enrichment's, twice worded as Enrich words it. */
export function createSqlQueryStep(
  config: SqlQueryConfig,
  query: RunQuery,
  now: () => number,
  offload?: OffloadedSelect,
  cachedMaxChars = CACHED_ROWS_MAX_CHARS,
) {
  const cache = createLookupCache<SelfDescribing[]>({
    ...config.cache,
    now,
    weight: { of: (entities) => JSON.stringify(entities).length, max: cachedMaxChars },
  })
  const enrichment = { schemaKey: config.schemaKey, identifier: SQL_QUERY_IDENTIFIER }
  return async function sqlQueryStep(
    event: EnrichedEvent,
    failures: EnrichmentFailure[],
  ): Promise<void> {
    let values: BoundValue[] | null
    try {
      const preselected = await preselectInputs(
        event,
        config.inputs.map((i) => i.input),
        offload,
      )
      values = placeholderValues(config, event, preselected)
    } catch (error) {
      // A JSONPath that compiled at start-up can still fail on a document (a filter on a value).
      if (!config.ignoreOnError)
        failures.push(
          { enrichment, message: { error: 'Error while building the map of placeholders' } },
          {
            enrichment,
            message: { error: error instanceof Error ? error.message : String(error) },
          },
        )
      return
    }
    if (values === null) return
    const result = await cache.get(JSON.stringify(values), async () =>
      rowEntities(config, await query(config.sql, values)),
    )
    if (result.ok) {
      event.derivedContexts.unshift(...result.value)
      if (result.value.some(keepsWrittenNumbers)) event.entitiesKeepWrittenNumbers = true
    } else if (!config.ignoreOnError)
      failures.push(
        { enrichment, message: { error: 'Error while executing the sql lookup' } },
        { enrichment, message: { error: result.error } },
      )
  }
}
