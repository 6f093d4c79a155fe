import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import { storeMigratedTo as migrated } from './support/migrated-store.js'
import { backends } from './support/test-databases.js'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe.each(backends)('content hashes stored before snowplow-cli’s form, on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  const storeMigratedTo = (migration: string) => migrated(backend, migration, cleanups)

  it('are rewritten in the new form wherever their content is stored; others are kept', async () => {
    const store = await storeMigratedTo('2026-11-28-10-mark-events-keeping-written-numbers')

    // As the registry stored them: the text as sent, hashed with its numbers as written.
    const text = '{"type": "number", "maximum": 1.0, "description": "10 < 9"}'
    const oldHash = sha256('{"description":"10 < 9","maximum":1.0,"type":"number"}')
    const newHash = sha256('{"description":"10 < 9","maximum":1,"type":"number"}')
    const goneHash = sha256('content of an earlier patch, no longer stored')
    const org = randomUUID()
    const structure = 'a'.repeat(64)
    const at = new Date('2026-11-01T00:00:00Z')
    await sql`insert into organizations (id, name) values (${org}, 'acme')`.execute(store.db)
    await sql`insert into data_structures (hash, organization_id, vendor, name, format, meta)
      values (${structure}, ${org}, 'com.acme', 'n', 'jsonschema', '{}')`.execute(store.db)
    await sql`insert into validated_schemas (organization_id, vendor, name, format, version, schema, meta, content_hash)
      values (${org}, 'com.acme', 'n', 'jsonschema', '1-0-0', ${text}, '{}', ${oldHash})`.execute(
      store.db,
    )
    await sql`insert into schema_versions (data_structure_hash, env, version, schema, content_hash, patch_level, deployed_at)
      values (${structure}, 'DEV', '1-0-0', ${text}, ${oldHash}, 1, ${at})`.execute(store.db)
    for (const hash of [goneHash, oldHash])
      await sql`insert into deployments (data_structure_hash, version, env, patch_level, content_hash, initiator, ts)
        values (${structure}, '1-0-0', 'DEV', 0, ${hash}, 'key', ${at})`.execute(store.db)

    await migrateToLatest(store.db)
    const hashes = async (table: string) =>
      (
        await sql<{ content_hash: string }>`select content_hash from ${sql.table(table)}`.execute(
          store.db,
        )
      ).rows.map((row) => row.content_hash)
    expect(await hashes('validated_schemas')).toEqual([newHash])
    expect(await hashes('schema_versions')).toEqual([newHash])
    expect((await hashes('deployments')).sort()).toEqual([goneHash, newHash].sort())
    // The stored text itself is untouched.
    const kept = await sql<{
      schema: string
    }>`select schema::text as schema from schema_versions`.execute(store.db)
    expect(kept.rows[0]?.schema).toBe(text)
  })

  it('are renamed in requests answered or accepted before, at whichever migration a store stands', async () => {
    for (const startAt of [
      '2026-11-28-10-mark-events-keeping-written-numbers',
      '2026-11-29-16-index-finished-requests',
    ]) {
      const store = await storeMigratedTo(startAt)

      const text = '{"type": "number", "maximum": 100.50}'
      const oldHash = sha256('{"maximum":100.50,"type":"number"}')
      const newHash = sha256('{"maximum":100.5,"type":"number"}')
      const goneHash = sha256('content no longer stored')
      const org = randomUUID()
      await sql`insert into organizations (id, name) values (${org}, 'acme')`.execute(store.db)
      // A store past migration 11 holds the schema under its new hash already.
      const stored = startAt.includes('-10-') ? oldHash : newHash
      await sql`insert into validated_schemas (organization_id, vendor, name, format, version, schema, meta, content_hash)
        values (${org}, 'com.acme', 'n', 'jsonschema', '1-0-0', ${text}, '{}', ${stored})`.execute(
        store.db,
      )
      const validation = randomUUID()
      const deployment = randomUUID()
      const other = randomUUID()
      const request = (id: string, kind: string, result: object, work: object | null) =>
        sql`insert into registry_requests (id, organization_id, kind, result, pending_work)
          values (${id}, ${org}, ${kind}, ${JSON.stringify(result).replace('{"n":1}', '{"n":1.0}')}::jsonb,
            ${work === null ? null : JSON.stringify(work)}::jsonb)`.execute(store.db)
      // A finished validation (its witness's number as written), an accepted deployment that
      // expects the validated content, and a request naming content no longer stored.
      await request(
        validation,
        'validation',
        {
          id: validation,
          completed: true,
          success: true,
          contentHash: oldHash,
          message: `validated ${oldHash}`,
          versionChange: { witness: { n: 1.0 } },
        },
        null,
      )
      const work = {
        kind: 'deployment',
        request: { source: 'VALIDATED', target: 'DEV', version: '1-0-0', contentHash: oldHash },
        patch: false,
      }
      await request(deployment, 'deployment', { id: deployment, completed: false }, work)
      await request(other, 'deployment', { id: other, contentHash: goneHash }, null)

      await migrateToLatest(store.db)
      const row = async (id: string) =>
        (
          await sql<{ result: string; work: string | null }>`select result::text as result,
            pending_work::text as work from registry_requests where id = ${id}`.execute(store.db)
        ).rows[0]
      const validated = await row(validation)
      expect(JSON.parse(validated?.result ?? '{}')).toMatchObject({
        contentHash: newHash,
        // Only `contentHash` members are renamed; a message keeps its words.
        message: `validated ${oldHash}`,
      })
      expect(validated?.result).toContain('"n": 1.0')
      const accepted = await row(deployment)
      expect(JSON.parse(accepted?.work ?? '{}').request.contentHash).toBe(newHash)
      expect(JSON.parse((await row(other))?.result ?? '{}').contentHash).toBe(goneHash)
    }
  })
})
