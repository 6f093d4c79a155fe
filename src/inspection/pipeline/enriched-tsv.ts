import {
  BOOLEAN_FIELDS,
  CANONICAL_FIELDS,
  TIMESTAMP_FIELDS,
  type CanonicalField,
} from './canonical-event.js'
import { isJsonObject } from '../../shared/index.js'
import { DOUBLE_FIELDS, javaDouble } from './java-doubles.js'

const CONTEXTS_1_0_0 = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'

function cell(field: CanonicalField, value: unknown): string {
  if (value === null || value === undefined) return ''
  if (field === 'contexts' || field === 'derived_contexts')
    return isJsonObject(value) && Array.isArray(value.data) && value.data.length > 0
      ? JSON.stringify({ schema: CONTEXTS_1_0_0, data: value.data })
      : ''
  if (field === 'unstruct_event') return JSON.stringify(value)
  // The SDK re-encodes instants without the `T` and the `Z`.
  if (TIMESTAMP_FIELDS.has(field) && typeof value === 'string')
    return value.replace('T', ' ').replace(/Z$/, '')
  if (BOOLEAN_FIELDS.has(field)) return value === true ? '1' : '0'
  // As Java prints a double: `5.0`, `1.0E-7`.
  if (DOUBLE_FIELDS.has(field) && typeof value === 'number') return javaDouble(value)
  // Tabs and newlines cannot occur in string fields (the pipeline made them TSV-safe).
  return String(value)
}

/** The 131-column enriched TSV line of an event (its canonical JSON), as Micro's `--output-tsv` prints it. */
export function toEnrichedTsv(event: Readonly<Record<string, unknown>>): string {
  return CANONICAL_FIELDS.map((field) => cell(field, event[field])).join('\t')
}
