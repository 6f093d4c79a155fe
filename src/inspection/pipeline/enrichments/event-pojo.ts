import {
  CANONICAL_FIELDS,
  TIMESTAMP_FIELDS,
  tsvTimestamp,
  type CanonicalField,
  type EnrichedEvent,
} from '../canonical-event.js'
import { DOUBLE_FIELDS } from '../java-doubles.js'

/**
 * The enriched event as Enrich's own event object (its POJO) shows it to the enrichments that
 * read fields by name (JavaScript, SQL, API): one value per atomic field (the entity fields
 * aside), typed as Enrich types it: timestamps as `yyyy-MM-dd HH:mm:ss.SSS` text, flags as 0/1.
 */

/** Fields Enrich holds as integers. */
export const INTEGER_FIELDS: ReadonlySet<CanonicalField> = new Set<CanonicalField>([
  'txn_id',
  'domain_sessionidx',
  'page_urlport',
  'refr_urlport',
  'ti_quantity',
  'pp_xoffset_min',
  'pp_xoffset_max',
  'pp_yoffset_min',
  'pp_yoffset_max',
  'br_viewwidth',
  'br_viewheight',
  'dvce_screenwidth',
  'dvce_screenheight',
  'doc_width',
  'doc_height',
])

/** The fields read and set one by one (the entity fields have JSON-text accessors of their own). */
export const POJO_FIELDS: readonly CanonicalField[] = CANONICAL_FIELDS.filter(
  (f) => f !== 'contexts' && f !== 'derived_contexts' && f !== 'unstruct_event',
)
const IS_POJO_FIELD: ReadonlySet<string> = new Set(POJO_FIELDS)

export function isPojoField(name: string): name is CanonicalField {
  return IS_POJO_FIELD.has(name)
}

/** A field's value with Enrich's type for it: text, an integer, a floating or decimal number, or a 0/1 flag. */
export type PojoValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'integer' | 'double' | 'decimal' | 'flag'; readonly value: number }

/** One field as Enrich's event object holds it; null when it is not set. */
export function pojoValue(event: EnrichedEvent, field: CanonicalField): PojoValue | null {
  const value = event.fields[field]
  if (value === null || value === undefined) return null
  if (TIMESTAMP_FIELDS.has(field) && typeof value === 'number')
    return { type: 'string', value: tsvTimestamp(value) }
  if (typeof value === 'boolean') return { type: 'flag', value: value ? 1 : 0 }
  if (typeof value === 'number') {
    if (INTEGER_FIELDS.has(field)) return { type: 'integer', value }
    if (field === 'geo_latitude' || field === 'geo_longitude') return { type: 'double', value }
    if (DOUBLE_FIELDS.has(field)) return { type: 'decimal', value }
    return { type: 'integer', value }
  }
  return { type: 'string', value: String(value) }
}
