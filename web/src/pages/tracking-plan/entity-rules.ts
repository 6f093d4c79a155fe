import type { EntityReference } from '../../api/tracking-plans.js'

/** One entity rule of the form, as typed: numbers and the schema are text until saved. */
export interface EntityRow {
  /** Stable across edits, for the list's keys. */
  readonly key: number
  readonly source: string
  readonly minCardinality: string
  readonly maxCardinality: string
  /** The specification's own JSON Schema for the entity: empty for none. */
  readonly schema: string
  readonly comment: string
}

let nextKey = 0

/** An empty rule: the entity may be present, any number of times. */
export function newEntityRow(): EntityRow {
  return {
    key: nextKey++,
    source: '',
    minCardinality: '',
    maxCardinality: '',
    schema: '',
    comment: '',
  }
}

/** The rows that show `references`. */
export function entityRows(references: readonly EntityReference[]): EntityRow[] {
  return references.map((reference) => ({
    key: nextKey++,
    source: reference.source,
    minCardinality: reference.minCardinality === undefined ? '' : String(reference.minCardinality),
    maxCardinality: reference.maxCardinality === undefined ? '' : String(reference.maxCardinality),
    schema: reference.schema === undefined ? '' : `${JSON.stringify(reference.schema, null, 2)}\n`,
    comment: reference.comment ?? '',
  }))
}

/** A cardinality as typed: undefined when empty; else a whole number of at least 0, or a throw. */
function cardinality(text: string, what: string): number | undefined {
  if (text.trim() === '') return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${what} must be a whole number of at least 0 (not ${JSON.stringify(text)})`)
  return value
}

/**
 * The entity rules the rows describe, in their order. A row left wholly empty is skipped; otherwise
 * a missing data structure, a cardinality that is not a whole number, a maximum below the minimum
 * or a schema that is not a JSON object throws, naming the entity (by its place) and the field.
 */
export function entityReferences(rows: readonly EntityRow[]): EntityReference[] {
  const references: EntityReference[] = []
  rows.forEach((row, index) => {
    const name = `Entity ${index + 1}`
    const typed = [row.source, row.minCardinality, row.maxCardinality, row.schema, row.comment]
    if (typed.every((text) => text.trim() === '')) return
    const source = row.source.trim()
    if (source === '') throw new Error(`${name}: its data structure (Iglu URI) is missing`)
    const minCardinality = cardinality(row.minCardinality, `${name}: the minimum`)
    const maxCardinality = cardinality(row.maxCardinality, `${name}: the maximum`)
    if (
      minCardinality !== undefined &&
      maxCardinality !== undefined &&
      maxCardinality < minCardinality
    )
      throw new Error(
        `${name}: the maximum (${maxCardinality}) is below the minimum (${minCardinality})`,
      )
    let schema: object | undefined
    if (row.schema.trim() !== '') {
      let parsed: unknown
      try {
        parsed = JSON.parse(row.schema)
      } catch (failure) {
        throw new Error(`${name}: its schema is not JSON: ${(failure as Error).message}`, {
          cause: failure,
        })
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error(`${name}: its schema must be a JSON Schema object`)
      schema = parsed
    }
    references.push({
      source,
      ...(minCardinality === undefined ? {} : { minCardinality }),
      ...(maxCardinality === undefined ? {} : { maxCardinality }),
      ...(schema === undefined ? {} : { schema }),
      ...(row.comment.trim() === '' ? {} : { comment: row.comment.trim() }),
    })
  })
  return references
}
