import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql, type Kysely } from 'kysely'
import type { RegistryTables } from './registry.table.js'
import type { Env } from './registry-records.js'

/**
 * Schema texts read a page at a time, with a turn of the event loop between two pages. PGlite
 * answers a statement without yielding, and its rows are decoded in the same turn: 22 MB of
 * schemas read in one statement held the loop for 0.4–0.7 s (RELIABILITY.md). A page holds at
 * most PAGE_BYTES of schema text (one larger schema alone) and at most PAGE_ROWS rows.
 */
const PAGE_BYTES = 1024 * 1024
const PAGE_ROWS = 64

/** One version of a data structure in one environment, before its schema is read. */
export interface VersionSlot {
  readonly hash: string
  readonly env: Env
  readonly version: string
  /** The schema's text size in bytes: what a page of texts is measured by. */
  readonly bytes: number
}

const slotKey = (hash: string, env: Env, version: string) => `${hash} ${env} ${version}`

/**
 * The schema text of each slot, as it was sent, by slot (a slot whose version was removed since it
 * was listed has none). Read in pages, in the slots' order.
 */
export async function readSchemaTexts(
  db: Kysely<RegistryTables>,
  slots: readonly VersionSlot[],
): Promise<(slot: VersionSlot) => string | undefined> {
  const texts = new Map<string, string>()
  let page: VersionSlot[] = []
  let pageBytes = 0
  const readPage = async () => {
    const rows = await db
      .selectFrom('schema_versions')
      .select(['data_structure_hash', 'env', 'version', sql<string>`schema::text`.as('text')])
      .where((eb) =>
        eb(
          eb.refTuple('data_structure_hash', 'env', 'version'),
          'in',
          page.map((slot) => eb.tuple(slot.hash, slot.env, slot.version)),
        ),
      )
      .execute()
    for (const row of rows)
      texts.set(slotKey(row.data_structure_hash, row.env, row.version), row.text)
    page = []
    pageBytes = 0
  }
  for (const slot of slots) {
    if (page.length > 0 && (pageBytes + slot.bytes > PAGE_BYTES || page.length >= PAGE_ROWS)) {
      await readPage()
      await nextTurn()
    }
    page.push(slot)
    pageBytes += slot.bytes
  }
  if (page.length > 0) await readPage()
  return (slot) => texts.get(slotKey(slot.hash, slot.env, slot.version))
}

/**
 * `fields` with a `schema` parsed from its `text` when it is first read: most reads of many
 * schemas need only their texts, and parsing them all would cost as much as reading them.
 */
export function withSchemaParsedOnRead<T extends { readonly text: string }>(
  fields: T,
): T & { readonly schema: Record<string, unknown> } {
  let parsed: Record<string, unknown> | undefined
  return Object.defineProperty(fields, 'schema', {
    get: () => (parsed ??= JSON.parse(fields.text) as Record<string, unknown>),
    enumerable: true,
  }) as T & { readonly schema: Record<string, unknown> }
}
