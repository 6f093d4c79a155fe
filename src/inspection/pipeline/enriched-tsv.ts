import {
  BOOLEAN_FIELDS,
  CANONICAL_FIELDS,
  TIMESTAMP_FIELDS,
  type CanonicalField,
} from './canonical-event.js'
import { exactJsonText } from '../../iglu/index.js'
import { isJsonObject } from '../../shared/index.js'
import { DOUBLE_FIELDS, holdsNumbersAsWritten, javaDouble } from './java-doubles.js'

const CONTEXTS_1_0_0 = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'

/** `asWritten`: the entities' numbers a double rounds are written as the tracker wrote them. */
function cell(field: CanonicalField, value: unknown, asWritten: boolean): string {
  if (value === null || value === undefined) return ''
  const json = asWritten ? exactJsonText : JSON.stringify
  if (field === 'contexts' || field === 'derived_contexts')
    return isJsonObject(value) && Array.isArray(value.data) && value.data.length > 0
      ? json({ schema: CONTEXTS_1_0_0, data: value.data })
      : ''
  if (field === 'unstruct_event') return json(value)
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
  const asWritten = holdsNumbersAsWritten(event)
  return CANONICAL_FIELDS.map((field) => cell(field, event[field], asWritten)).join('\t')
}
