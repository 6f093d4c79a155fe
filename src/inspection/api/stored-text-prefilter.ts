/**
 * Texts a database can look for in an event's stored JSON before Floe reads the event: a
 * necessary condition of the events query's filters and search, never a sufficient one (the
 * query checks every event it is given again). Each group is satisfied when the stored text
 * contains one of its texts, ignoring ASCII case.
 *
 * A filter value or search text is only looked for when its presence in the stored text follows
 * from a match: lower-case letters, space, and the punctuation that JSON writes as it is. Digits,
 * `+` and `,` are left out (a number may be stored as `1.0E21` and read as `1e+21`, or stored as
 * `1.0E7` and read as `10000000`; `geo_location` joins two numbers with a comma), and so are `"`
 * and `\` (escaped in JSON). A value `null` also matches an absent field: it is never looked for.
 * Two characters outside ASCII lower-case to ASCII in JavaScript (U+212A to `k`, U+0130 to `i`
 * and a combining dot), which ASCII case folding misses: the pattern matches them where it looks
 * for `k` or `i`.
 */
export type StoredTextGroups = readonly StoredTextGroup[]

/** One filter's values (or the search text), of which the stored text must hold one. */
export interface StoredTextGroup {
  readonly texts: readonly string[]
  /**
   * The atomic field the filter reads, when it is one a store may keep apart from the event's
   * text ({@link FILTER_FIELDS}, in {@link filterFieldsText}): the texts are then in that too.
   * Null for the search text and the other columns.
   */
  readonly field: FilterField | null
}

/**
 * The atomic fields tests filter events by most, which a store may keep apart from the event's
 * text: a filter on one of them is then looked for in a few hundred characters, not in ~5 kB.
 */
export const FILTER_FIELDS = [
  'app_id',
  'platform',
  'event',
  'event_name',
  'event_vendor',
  'event_format',
  'name_tracker',
  'user_id',
  'page_urlhost',
  'page_urlpath',
  'page_title',
  'se_category',
  'se_action',
  'se_label',
  'mkt_source',
  'mkt_medium',
  'mkt_campaign',
] as const
export type FilterField = (typeof FILTER_FIELDS)[number]
const filterFields: ReadonlySet<string> = new Set(FILTER_FIELDS)

/**
 * The longest piece of a filter field's text kept: the prefilter looks for at most the first
 * MAX_TEXT_CHARS characters of a value the field equals, so that piece of it is enough.
 */
const MAX_FILTER_FIELD_CHARS = 128

/**
 * An event's filter fields as JSON text (a canonical event's fields, as the events query reads
 * them): each string cut to its first MAX_FILTER_FIELD_CHARS characters, absent fields left out.
 */
export function filterFieldsText(fields: Readonly<Record<string, unknown>>): string {
  const kept: Record<string, unknown> = {}
  for (const field of FILTER_FIELDS) {
    const value = fields[field]
    if (value === null || value === undefined) continue
    kept[field] = typeof value === 'string' ? value.slice(0, MAX_FILTER_FIELD_CHARS) : value
  }
  return JSON.stringify(kept)
}

const LOOKED_FOR = /^[a-z _:/#?&=!~*'()$;@<>|[\]{}^`%.-]+$/

/**
 * Bounds on what the database is asked to look for: a regular expression of fifty 1 000-character
 * alternatives held PGlite's thread for minutes. A text is looked for by its first characters (a
 * stored text holding the whole holds them too); a group of more texts, or the groups past the
 * first few, are left to the query's own check.
 */
const MAX_TEXT_CHARS = 64
const MAX_TEXTS_PER_GROUP = 16
const MAX_GROUPS = 8

const lookedFor = (text: string) => LOOKED_FOR.test(text) && text !== 'null'

/** The groups of texts an event must hold to match the query (empty: nothing can be looked for). */
export function storedTextGroups(query: {
  readonly filters: readonly { readonly column: string; readonly values: readonly string[] }[]
  readonly search?: string | null
}): StoredTextGroups {
  const groups: StoredTextGroup[] = []
  const looked = (texts: readonly string[], field: FilterField | null) => {
    if (texts.length === 0 || texts.length > MAX_TEXTS_PER_GROUP || !texts.every(lookedFor)) return
    groups.push({ texts: [...new Set(texts.map((text) => text.slice(0, MAX_TEXT_CHARS)))], field })
  }
  for (const filter of query.filters)
    looked(
      [...new Set(filter.values.filter((v) => v !== '').map((v) => v.toLowerCase()))],
      filterFields.has(filter.column) ? (filter.column as FilterField) : null,
    )
  const search = (query.search ?? '').toLowerCase()
  if (search !== '') looked([search], null)
  return groups.slice(0, MAX_GROUPS)
}

/**
 * A regular expression, for case-insensitive matching (PostgreSQL's `~*`, JavaScript's `i`), that
 * finds any of the texts: punctuation escaped, and `k` and `i` also matched by the two characters
 * that lower-case to them in JavaScript only.
 */
export function storedTextPattern(texts: readonly string[]): string {
  return texts
    .map((text) =>
      text
        .replace(/[^a-z ]/g, '\\$&')
        .replace(/k/g, '[k\u212a]')
        .replace(/i/g, '[i\u0130]'),
    )
    .join('|')
}

/** What a database does with the groups, in JavaScript: for tests of the rule above. */
export function storedTextHolds(stored: string, groups: StoredTextGroups): boolean {
  return groups.every(({ texts }) => new RegExp(storedTextPattern(texts), 'i').test(stored))
}

/** The same, of an event's filter fields ({@link filterFieldsText}) for the groups of those fields. */
export function filterFieldsHold(fieldsText: string, groups: StoredTextGroups): boolean {
  return storedTextHolds(
    fieldsText,
    groups.filter(({ field }) => field !== null),
  )
}
