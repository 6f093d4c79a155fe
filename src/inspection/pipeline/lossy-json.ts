import { copyWrittenNumbers } from '../../iglu/index.js'
import { CANONICAL_FIELDS } from './canonical-event.js'
import { holdsNumbersAsWritten, writeNumbersAsWritten } from './java-doubles.js'
import { BoundedMemo, isJsonObject, looseIgluUriParts } from '../../shared/index.js'

/** `com.acme-x` → `com_acme_x`. */
const vendorKey = (vendor: string) => vendor.replace(/[.-]/g, '_').toLowerCase()
/** `PerformanceTiming` → `performance_timing`; `.` and `-` become `_`. */
const nameKey = (name: string) =>
  name
    .replace(/[.-]/g, '_')
    .replace(/([^A-Z_])([A-Z])/g, '$1_$2')
    .toLowerCase()

/** The column an entity or event of this schema goes to, e.g. `contexts_org_w3_performance_timing_1`. */
export function entityColumn(prefix: 'contexts' | 'unstruct_event', schema: string): string | null {
  const parts = looseIgluUriParts(schema)
  return parts === null
    ? null
    : `${prefix}_${vendorKey(parts.vendor)}_${nameKey(parts.name)}_${parts.version.split('-')[0]}`
}

/** The columns of recent entity schemas: a store's events name the same few again and again. */
const columnsOfSchemas = {
  contexts: new BoundedMemo<string, string | null>(1024, (schema) =>
    entityColumn('contexts', schema),
  ),
  unstruct_event: new BoundedMemo<string, string | null>(1024, (schema) =>
    entityColumn('unstruct_event', schema),
  ),
}

/** {@link entityColumn}, remembered for schema URIs of ordinary length. */
const columnOf = (prefix: 'contexts' | 'unstruct_event', schema: string) =>
  schema.length <= 256 ? columnsOfSchemas[prefix].get(schema) : entityColumn(prefix, schema)

function entities(value: unknown): { schema: string; data: unknown }[] {
  if (!isJsonObject(value) || !Array.isArray(value.data)) return []
  return value.data.filter(
    (item): item is { schema: string; data: unknown } =>
      isJsonObject(item) && typeof item.schema === 'string',
  )
}

/** `copy` (of `data`, with a key added), keeping `data`'s numbers as written. */
function withWrittenNumbersOf(
  data: object,
  copy: Record<string, unknown>,
): Record<string, unknown> {
  copyWrittenNumbers(data, copy)
  return copy
}

/** The atomic fields of the flattened form: every canonical field but the three entity ones. */
export const FLAT_ATOMIC_FIELDS: readonly string[] = CANONICAL_FIELDS.filter(
  (field) => field !== 'contexts' && field !== 'derived_contexts' && field !== 'unstruct_event',
)

/**
 * The entity columns of an event's flattened form, in the order it has them: each context schema
 * as `contexts_<vendor>_<name>_<model>` (a list of data objects tagged with `_schema_version`),
 * then the self-describing event as `unstruct_event_<vendor>_<name>_<model>`.
 */
export function flatEntityColumns(event: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const columns = new Map<string, unknown>()
  for (const entity of [...entities(event.contexts), ...entities(event.derived_contexts)]) {
    const column = columnOf('contexts', entity.schema)
    if (column === null) continue
    const item = isJsonObject(entity.data)
      ? withWrittenNumbersOf(entity.data, { ...entity.data, _schema_version: entity.schema })
      : entity.data
    // Pushed, not copied: an event may carry thousands of entities of one schema.
    const items = columns.get(column) as unknown[] | undefined
    if (items === undefined) columns.set(column, [item])
    else items.push(item)
  }
  const unstruct = event.unstruct_event
  if (
    isJsonObject(unstruct) &&
    isJsonObject(unstruct.data) &&
    typeof unstruct.data.schema === 'string'
  ) {
    const column = columnOf('unstruct_event', unstruct.data.schema)
    if (column !== null) columns.set(column, unstruct.data.data)
  }
  return columns
}

/** `geo_location` of the flattened form: `latitude,longitude` when both are known. */
export function flatGeoLocation(event: Readonly<Record<string, unknown>>): string | undefined {
  return typeof event.geo_latitude === 'number' && typeof event.geo_longitude === 'number'
    ? `${event.geo_latitude},${event.geo_longitude}`
    : undefined
}

/**
 * The flattened ("lossy") JSON of the analytics SDK that Micro's events query and `--output-json`
 * use: atomic fields as they are, then the entity columns ({@link flatEntityColumns}), and
 * `geo_location` when both coordinates are known.
 */
export function toLossyJson(event: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const field of FLAT_ATOMIC_FIELDS) out[field] = event[field] ?? null
  for (const [column, value] of flatEntityColumns(event)) out[column] = value
  const geoLocation = flatGeoLocation(event)
  if (geoLocation !== undefined) out.geo_location = geoLocation
  // Its entities are the event's (or copies keeping their written numbers): written as they are.
  if (holdsNumbersAsWritten(event)) writeNumbersAsWritten(out)
  return out
}

/**
 * Whether the text of a scalar, or of any scalar inside a value (iteratively: depth does not
 * matter), holds `needle` (lower-case), ignoring case. Nulls hold no text.
 */
export function holdsText(value: unknown, needle: string): boolean {
  if (value === null || value === undefined) return false
  // A scalar, as most values are: no stack to walk.
  if (typeof value !== 'object') return String(value).toLowerCase().includes(needle)
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item === null || item === undefined) continue
    if (typeof item === 'object') for (const inner of Object.values(item)) stack.push(inner)
    else if (String(item).toLowerCase().includes(needle)) return true
  }
  return false
}

/**
 * Whether any value of the event's flattened form ({@link toLossyJson}) holds `needle`
 * (lower-case), ignoring case: the same values, read from the event itself. Building the entity
 * columns to walk them copied every entity of every event a search looked at.
 */
export function flatFormHoldsText(
  event: Readonly<Record<string, unknown>>,
  needle: string,
): boolean {
  for (const field of FLAT_ATOMIC_FIELDS) if (holdsText(event[field], needle)) return true
  for (const list of [event.contexts, event.derived_contexts])
    for (const entity of entities(list)) {
      if (columnOf('contexts', entity.schema) === null) continue
      const data = entity.data
      if (!isJsonObject(data)) {
        if (holdsText(data, needle)) return true
        continue
      }
      // The flattened item is the data with `_schema_version` set to the entity's schema.
      if (entity.schema.toLowerCase().includes(needle)) return true
      for (const key of Object.keys(data))
        if (key !== '_schema_version' && holdsText(data[key], needle)) return true
    }
  const unstruct = event.unstruct_event
  if (
    isJsonObject(unstruct) &&
    isJsonObject(unstruct.data) &&
    typeof unstruct.data.schema === 'string' &&
    columnOf('unstruct_event', unstruct.data.schema) !== null &&
    holdsText(unstruct.data.data, needle)
  )
    return true
  return flatGeoLocation(event)?.toLowerCase().includes(needle) ?? false
}
