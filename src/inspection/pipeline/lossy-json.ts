import { copyWrittenNumbers } from '../../iglu/index.js'
import { CANONICAL_FIELDS } from './canonical-event.js'
import { holdsNumbersAsWritten, writeNumbersAsWritten } from './java-doubles.js'
import { isJsonObject, looseIgluUriParts } from '../../shared/index.js'

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

function entities(value: unknown): { schema: string; data: unknown }[] {
  if (!isJsonObject(value) || !Array.isArray(value.data)) return []
  return value.data.filter(
    (item): item is { schema: string; data: unknown } =>
      isJsonObject(item) && typeof item.schema === 'string',
  )
}

/**
 * The flattened ("lossy") JSON of the analytics SDK that Micro's events query and `--output-json`
 * use: atomic fields as they are, each context schema as `contexts_<vendor>_<name>_<model>` (a list
 * of data objects tagged with `_schema_version`), the self-describing event as
 * `unstruct_event_<vendor>_<name>_<model>`, and `geo_location` when both coordinates are known.
 */
/** `copy` (of `data`, with a key added), keeping `data`'s numbers as written. */
function withWrittenNumbersOf(
  data: object,
  copy: Record<string, unknown>,
): Record<string, unknown> {
  copyWrittenNumbers(data, copy)
  return copy
}

export function toLossyJson(event: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const field of CANONICAL_FIELDS) {
    if (field === 'contexts' || field === 'derived_contexts' || field === 'unstruct_event') continue
    out[field] = event[field] ?? null
  }
  for (const entity of [...entities(event.contexts), ...entities(event.derived_contexts)]) {
    const column = entityColumn('contexts', entity.schema)
    if (column === null) continue
    const item = isJsonObject(entity.data)
      ? withWrittenNumbersOf(entity.data, { ...entity.data, _schema_version: entity.schema })
      : entity.data
    out[column] = [...((out[column] as unknown[] | undefined) ?? []), item]
  }
  const unstruct = event.unstruct_event
  if (
    isJsonObject(unstruct) &&
    isJsonObject(unstruct.data) &&
    typeof unstruct.data.schema === 'string'
  ) {
    const column = entityColumn('unstruct_event', unstruct.data.schema)
    if (column !== null) out[column] = unstruct.data.data
  }
  if (typeof event.geo_latitude === 'number' && typeof event.geo_longitude === 'number')
    out.geo_location = `${event.geo_latitude},${event.geo_longitude}`
  // Its entities are the event's (or copies keeping their written numbers): written as they are.
  if (holdsNumbersAsWritten(event)) writeNumbersAsWritten(out)
  return out
}
