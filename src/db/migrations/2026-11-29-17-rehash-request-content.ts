import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { parse, stringify } from 'lossless-json'

const SCHEMA_TABLES = ['validated_schemas', 'schema_versions'] as const
/** Requests read and rewritten a page at a time. */
const REQUESTS_PER_PAGE = 500
/** Does the text hold one of the old hashes at all? (Most requests' texts hold none.) */
const HAS_OLD_HASH = (text: string, old: ReadonlyMap<string, string>) =>
  [...text.matchAll(/[0-9a-f]{64}/g)].some(([hash]) => old.has(hash))

/**
 * The content hash as Floe took it before migration 11: SHA-256 of the text with its keys sorted
 * (JavaScript's order) at every level, compact, numbers exactly as written. A copy frozen here,
 * as a migration is: the registry no longer has it.
 */
function hashBeforeMigration11(text: string): string {
  const sortKeys = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortKeys)
    if (value !== null && typeof value === 'object' && value.constructor === Object) {
      const sorted: Record<string, unknown> = {}
      for (const key of Object.keys(value).sort())
        sorted[key] = sortKeys((value as Record<string, unknown>)[key])
      return sorted
    }
    return value
  }
  const canonical = (written: string) => stringify(sortKeys(parse(written))) ?? 'null'
  let form: string
  try {
    form = canonical(text)
  } catch {
    // A key written twice (kept from before the registry refused it): hashed as JSON.parse read it.
    form = canonical(JSON.stringify(JSON.parse(text)))
  }
  return createHash('sha256').update(form, 'utf8').digest('hex')
}

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Migration 11 rewrote the stored schemas' and deployments' hashes, not those that requests
  // answered or were to check: a client deploying with the `contentHash` a validation answered
  // before it was refused as if the content had changed. Each stored text gives its old hash's
  // current value (its row's, rewritten by migration 11).
  const current = new Map<string, string>()
  for (const table of SCHEMA_TABLES) {
    const rows = await sql<{ content_hash: string; schema_text: string }>`
      select content_hash, schema::text as schema_text from ${sql.table(table)}`.execute(db)
    for (const row of rows.rows) {
      const before = hashBeforeMigration11(row.schema_text)
      if (before !== row.content_hash) current.set(before, row.content_hash)
    }
  }
  if (current.size === 0) return
  /** The text with every `contentHash` member naming an old hash renamed; the rest as written. */
  const renamed = (text: string | null): string | null => {
    if (text === null || !HAS_OLD_HASH(text, current)) return text
    let changed = false
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk)
      else if (value !== null && typeof value === 'object' && value.constructor === Object) {
        const members = value as Record<string, unknown>
        for (const [key, member] of Object.entries(members)) {
          const now = key === 'contentHash' && typeof member === 'string' && current.get(member)
          if (now) {
            members[key] = now
            changed = true
          } else walk(member)
        }
      }
    }
    const value = parse(text)
    walk(value)
    return changed ? (stringify(value) ?? text) : text
  }
  let after = ''
  for (;;) {
    const page = await sql<{ id: string; result: string; work: string | null }>`
      select id::text as id, result::text as result, pending_work::text as work
      from registry_requests where id::text > ${after} order by id::text
      limit ${REQUESTS_PER_PAGE}`.execute(db)
    for (const row of page.rows) {
      const result = renamed(row.result)
      const work = renamed(row.work)
      if (result === row.result && work === row.work) continue
      await sql`update registry_requests
        set result = ${result}::jsonb, pending_work = ${work}::jsonb
        where id = ${row.id}::uuid`.execute(db)
    }
    const last = page.rows.at(-1)
    if (last === undefined || page.rows.length < REQUESTS_PER_PAGE) return
    after = last.id
  }
}

export async function down(): Promise<void> {
  // The hashes are those of the content the rows already name: nothing to undo.
}
