import { FLAT_ATOMIC_FIELDS, flatFormHoldsText } from '../pipeline/lossy-json.js'
import type { FlattenedEvent } from './flattened-event.js'

/**
 * The columns of the flattened events that the events query filters and sorts by: the atomic
 * fields, `geo_location`, each entity column (`contexts_<vendor>_<name>_<model>`, a list) and
 * self-describing event column (`unstruct_event_…`, an object), and inside those a property by
 * its path (`contexts_com_shop_product_1.sku`, `unstruct_event_com_shop_add_to_cart_1.item.price`).
 */

const ATOMIC_COLUMNS: ReadonlySet<string> = new Set([...FLAT_ATOMIC_FIELDS, 'geo_location'])

const ENTITY_COLUMN = /^(contexts|unstruct_event)_[a-z0-9_]+_\d+$/

/** A column the events query knows, split into its flattened column and the path inside it. */
export interface EventColumn {
  readonly column: string
  readonly path: readonly string[]
}

/** The column named, or null when no event can have it (a misspelt field, a wrong prefix). */
export function eventColumn(name: string): EventColumn | null {
  if (ATOMIC_COLUMNS.has(name)) return { column: name, path: [] }
  const [column = '', ...path] = name.split('.')
  if (!ENTITY_COLUMN.test(column) || path.some((step) => step === '')) return null
  return { column, path }
}

/** The values at a path inside a column's value: every entity of a list, every item of an array on the way. */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  let current: unknown[] = Array.isArray(value) ? value : [value]
  for (const step of path) {
    const next: unknown[] = []
    for (const item of current) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue
      const child = (item as Record<string, unknown>)[step]
      // One at a time: spread as arguments, an array of 150 000 items overflows the stack.
      if (Array.isArray(child)) for (const grandchild of child) next.push(grandchild)
      else if (child !== undefined) next.push(child)
    }
    current = next
  }
  return current
}

const asText = (value: unknown) => (value === null || value === undefined ? 'null' : String(value))

/**
 * Whether `test` holds for the lower-case text of some scalar inside a value (iteratively: depth
 * does not matter), stopping at the first that does.
 */
function someScalarText(value: unknown, test: (text: string) => boolean): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item !== null && typeof item === 'object') {
      for (const inner of Object.values(item)) stack.push(inner)
    } else if (test(asText(item).toLowerCase())) return true
  }
  return false
}

/**
 * Whether any value of a flattened event, in any column and anywhere inside its entities and its
 * self-describing event, contains `needle` (lower-case), ignoring case. Nulls hold no text.
 */
export const eventHoldsText = (event: FlattenedEvent, needle: string): boolean =>
  flatFormHoldsText(event.stored.event, needle)

/**
 * The values of a column (or path) to look for a filter's values in: the scalar itself (null as
 * `"null"`), or, for an entity or object column, everything inside it.
 */
function filteredValues(event: FlattenedEvent, column: EventColumn): unknown[] | string {
  const value = event.column(column.column)
  if (column.path.length === 0 && (value === null || typeof value !== 'object'))
    return asText(value).toLowerCase()
  if (value === undefined || value === null) return 'null'
  return column.path.length === 0 ? [value] : valuesAt(value, column.path)
}

/**
 * Whether a flattened event has one of the (lower-case) values in the column: a scalar equal to
 * one (case-insensitive, null as `"null"`); an entity or object column when any value inside it is.
 * The walk stops at the first value found.
 */
export function columnHolds(
  event: FlattenedEvent,
  column: EventColumn,
  values: ReadonlySet<string>,
): boolean {
  const found = filteredValues(event, column)
  if (typeof found === 'string') return values.has(found)
  return found.some((item) => someScalarText(item, (text) => values.has(text)))
}

/**
 * Every text `columnHolds` compares with, once: for several filters of one column, each is then
 * a look-up instead of another walk of what may be thousands of properties.
 */
export function columnTexts(event: FlattenedEvent, column: EventColumn): ReadonlySet<string> {
  const found = filteredValues(event, column)
  if (typeof found === 'string') return new Set([found])
  const texts = new Set<string>()
  for (const item of found)
    someScalarText(item, (text) => {
      texts.add(text)
      return false
    })
  return texts
}

/** The value a column sorts by: a scalar at the column (or path); none for an object or a list. */
export function sortValue(
  event: FlattenedEvent,
  column: EventColumn,
): string | number | boolean | null | undefined {
  const value =
    column.path.length === 0
      ? event.column(column.column)
      : valuesAt(event.column(column.column), column.path)[0]
  return value === null || typeof value !== 'object'
    ? (value as string | number | boolean | null | undefined)
    : undefined
}
