import { sql, type Kysely } from 'kysely'

const SCHEMA_TABLES = ['validated_schemas', 'schema_versions'] as const
const HASHED_TABLES = [...SCHEMA_TABLES, 'deployments'] as const
/** Hash pairs written by one update statement. */
const PAIRS_PER_UPDATE = 500

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Content hashes were of the canonical text with numbers as written (`1.0` and `1` differed);
  // they are now snowplow-cli's (Go's form of what the document says). Every stored schema text
  // gives its old hash's new value; deployments of content no longer stored keep their old hash.
  const { contentHashOfText } = await import('../../iglu/index.js')
  const rehash = (text: string): string => {
    try {
      return contentHashOfText(text)
    } catch {
      // A key written twice with different values (kept from before the registry refused it): the
      // value JSON.parse reads, as the hash of such a document was taken before.
      return contentHashOfText(JSON.stringify(JSON.parse(text)))
    }
  }
  const renamed = new Map<string, string>()
  for (const table of SCHEMA_TABLES) {
    const rows = await sql<{ content_hash: string; schema_text: string }>`
      select content_hash, schema::text as schema_text from ${sql.table(table)}`.execute(db)
    for (const row of rows.rows) renamed.set(row.content_hash, rehash(row.schema_text))
  }
  const pairs = [...renamed].filter(([before, after]) => before !== after)
  for (let at = 0; at < pairs.length; at += PAIRS_PER_UPDATE) {
    const values = sql.join(
      pairs.slice(at, at + PAIRS_PER_UPDATE).map(([before, after]) => sql`(${before}, ${after})`),
    )
    for (const table of HASHED_TABLES)
      await sql`update ${sql.table(table)} as t set content_hash = r.after
        from (values ${values}) as r(before, after) where t.content_hash = r.before`.execute(db)
  }
}

export async function down(): Promise<void> {
  // The old hashes cannot be told from the new ones for content written since: nothing to undo.
}
