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
export type StoredTextGroups = readonly (readonly string[])[]

const LOOKED_FOR = /^[a-z _:/#?&=!~*'()$;@<>|[\]{}^`%.-]+$/

const lookedFor = (text: string) => LOOKED_FOR.test(text) && text !== 'null'

/** The groups of texts an event must hold to match the query (empty: nothing can be looked for). */
export function storedTextGroups(query: {
  readonly filters: readonly { readonly values: readonly string[] }[]
  readonly search?: string | null
}): StoredTextGroups {
  const groups: string[][] = []
  for (const filter of query.filters) {
    const values = [...new Set(filter.values.filter((v) => v !== '').map((v) => v.toLowerCase()))]
    if (values.length > 0 && values.every(lookedFor)) groups.push(values)
  }
  const search = (query.search ?? '').toLowerCase()
  if (search !== '' && lookedFor(search)) groups.push([search])
  return groups
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
  return groups.every((texts) => new RegExp(storedTextPattern(texts), 'i').test(stored))
}
