import { sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, type FloeApp } from '../src/app.js'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { systemClock } from '../src/auth/clock.js'
import { createDb } from '../src/db/create-db.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { migrations } from '../src/db/migrations/index.js'
import { createAjv } from '../src/iglu/ajv-factory.js'
import { createRegistryService } from '../src/registry/registry.service.js'
import { checkSchemaDocument } from '../src/registry/schema-validation.js'
import { apiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { testConfig } from './support/test-config.js'
import { allTables, type AuthTables, type RegistryTables } from './support/all-tables.js'
import { pollUntil } from './support/poll-until.js'
import { checkCompatibility } from '../src/compatibility/check-compatibility.js'

const BOOTSTRAP = {
  organizationId: '0b7e1f4e-5c1a-4c52-9d6b-3f2f8f0d1a11',
  apiKeyId: '7d8d9a61-2b43-4f0e-8d1e-2c4b7a9e0c22',
  apiKey: 'bootstrap-secret-for-tests-0001',
}

describe.each(backends)('storage on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  async function fresh(
    options: { onDisk?: boolean; unmigrated?: boolean } = {},
  ): Promise<TestDatabase> {
    const database = await backend.create(options)
    cleanups.push(() => database.drop())
    return database
  }
  /** An app on the database; its first-start secret counts as shown unless `shown` is false. */
  async function open(
    database: TestDatabase,
    overrides: Parameters<typeof testConfig>[0] = {},
    shown = true,
  ): Promise<FloeApp> {
    const app = await createApp(testConfig({ db: database.config, ...overrides }))
    cleanups.push(() => app.close())
    if (shown) await app.confirmStartupShown()
    return app
  }

  it('applies every migration, and applying again changes nothing', async () => {
    const database = await fresh({ unmigrated: true })
    const store = await createDb(database.config)
    cleanups.push(() => store.close())
    const first = await migrateToLatest(store.db)
    expect(first.map((r) => [r.migrationName, r.status])).toEqual(
      Object.keys(migrations).map((name) => [name, 'Success']),
    )
    expect(await migrateToLatest(store.db)).toEqual([])
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(
      allTables(store.db),
    )
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'organizations', 'server_secrets']),
    )
  })

  it('upgrades documents stored as jsonb to json, keeping their content, and keeps the key order of later writes', async () => {
    const database = await fresh()
    const store = await createDb(database.config)
    cleanups.push(() => store.close())
    const migrator = new Migrator({
      db: allTables(store.db),
      provider: { getMigrations: async () => migrations },
    })
    expect(
      (await migrator.migrateTo('2026-11-22-06-remember-unshown-initial-secret')).error,
    ).toBeUndefined()
    const org = '3c0e8a7e-1111-4c52-9d6b-3f2f8f0d1a11'
    await sql`insert into organizations (id, name) values (${org}, 'o')`.execute(store.db)
    await sql`insert into data_structures (hash, organization_id, vendor, name, format, meta) values ('h', ${org}, 'v', 'n', 'jsonschema', '{}'::jsonb)`.execute(
      allTables(store.db),
    )
    const before = { z: 1, a: { y: [1, 2], b: null } }
    await sql`insert into schema_versions (data_structure_hash, env, version, schema, content_hash, patch_level, deployed_at) values ('h', 'DEV', '1-0-0', ${JSON.stringify(before)}::jsonb, 'c', 0, now())`.execute(
      allTables(store.db),
    )
    await migrateToLatest(store.db)
    const types = await sql<{
      data_type: string
    }>`select data_type from information_schema.columns where table_name = 'schema_versions' and column_name = 'schema'`.execute(
      allTables(store.db),
    )
    expect(types.rows).toEqual([{ data_type: 'json' }])
    const kept = await sql<{
      schema: unknown
    }>`select schema from schema_versions where data_structure_hash = 'h'`.execute(store.db)
    expect(kept.rows[0]?.schema).toEqual(before)
    await sql`update schema_versions set schema = ${JSON.stringify(before)}::json where data_structure_hash = 'h'`.execute(
      allTables(store.db),
    )
    const rewritten = await sql<{
      schema: unknown
    }>`select schema from schema_versions where data_structure_hash = 'h'`.execute(store.db)
    expect(JSON.stringify(rewritten.rows[0]?.schema)).toBe(JSON.stringify(before))
  })

  it('keeps organizations, keys and the signing secret across a restart', async () => {
    const database = await fresh({ onDisk: true })
    const first = await open(database)
    if (first.startup.kind !== 'initial') throw new Error('expected initial credentials')
    const { organizationId, apiKeyId, apiKey } = first.startup
    const created = await createCredentialsService({
      db: first.store.db.withTables<AuthTables>(),
      clock: systemClock,
    }).createOrganization('kept')
    await first.http.listen({ host: '127.0.0.1', port: 0 })
    const tokenUrl = (app: FloeApp) =>
      `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`
    const before = await fetch(tokenUrl(first), {
      headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
    })
    const { accessToken } = (await before.json()) as { accessToken: string }
    await first.close()

    const second = await open(database)
    expect(second.startup.kind).toBe('existing')
    await second.http.listen({ host: '127.0.0.1', port: 0 })
    const after = await fetch(tokenUrl(second), {
      headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
    })
    expect(after.status).toBe(200)
    const listUrl = tokenUrl(second).replace('/credentials/v3/token', '/credentials/v2/api-keys')
    const listed = await fetch(listUrl, { headers: { authorization: `Bearer ${accessToken}` } })
    expect(listed.status).toBe(200)
    const organizations = await createCredentialsService({
      db: second.store.db.withTables<AuthTables>(),
      clock: systemClock,
    }).listOrganizations()
    expect(organizations.map((o) => o.id)).toEqual(
      expect.arrayContaining([organizationId, created.id]),
    )
  })

  it('creates the default organization and admin key only when the store is empty', async () => {
    const database = await fresh({ onDisk: true })
    const first = await open(database)
    expect(first.startup.kind).toBe('initial')
    await first.close()
    const second = await open(database)
    expect(second.startup.kind).toBe('existing')
    const keys = await createCredentialsService({
      db: second.store.db.withTables<AuthTables>(),
      clock: systemClock,
    }).listApiKeys()
    expect(keys).toHaveLength(1)
    expect(keys[0]?.isAdmin).toBe(true)
  })

  it('gives the first-start key a new secret at each start until one was shown, then never again', async () => {
    const database = await fresh({ onDisk: true })
    // A first start that stopped before showing its secret (killed, or its port taken).
    const lost = await open(database, {}, false)
    if (lost.startup.kind !== 'initial') throw new Error('expected initial credentials')
    await lost.close()
    const next = await open(database, {}, false)
    if (next.startup.kind !== 'initial') throw new Error('expected the secret again')
    expect([next.startup.organizationId, next.startup.apiKeyId]).toEqual([
      lost.startup.organizationId,
      lost.startup.apiKeyId,
    ])
    expect(next.startup.apiKey).not.toBe(lost.startup.apiKey)
    const credentials = createCredentialsService({
      db: next.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const { organizationId, apiKeyId } = next.startup
    await expect(
      credentials.authenticateByIdAndSecret(organizationId, apiKeyId, lost.startup.apiKey),
    ).rejects.toThrow()
    expect(
      (await credentials.authenticateByIdAndSecret(organizationId, apiKeyId, next.startup.apiKey))
        .isAdmin,
    ).toBe(true)
    await next.confirmStartupShown()
    await next.close()
    const later = await open(database, {}, false)
    expect(later.startup.kind).toBe('existing')
    expect(
      await createCredentialsService({
        db: later.store.db.withTables<AuthTables>(),
        clock: systemClock,
      }).listApiKeys(),
    ).toHaveLength(1)
  })

  it('ensures the bootstrap organization and admin key, harmlessly when repeated', async () => {
    const database = await fresh({ onDisk: true })
    const first = await open(database, { bootstrap: BOOTSTRAP })
    expect(first.startup).toMatchObject({
      kind: 'bootstrap',
      organizationCreated: true,
      keyCreated: true,
    })
    await first.close()
    const second = await open(database, { bootstrap: BOOTSTRAP })
    expect(second.startup).toMatchObject({
      kind: 'bootstrap',
      organizationCreated: false,
      keyCreated: false,
      secretChanged: false,
    })
    const service = createCredentialsService({
      db: second.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    expect((await service.listOrganizations()).map((o) => o.id)).toEqual([BOOTSTRAP.organizationId])
    const keys = await service.listApiKeys()
    expect(keys.map((k) => [k.id, k.isAdmin])).toEqual([[BOOTSTRAP.apiKeyId, true]])
    const key = await service.authenticateByIdAndSecret(
      BOOTSTRAP.organizationId,
      BOOTSTRAP.apiKeyId,
      BOOTSTRAP.apiKey,
    )
    expect(key.id).toBe(BOOTSTRAP.apiKeyId)
  })

  it('finishes, after a restart, the asynchronous requests accepted before the server stopped', async () => {
    const database = await fresh({ onDisk: true })
    const first = await open(database, { bootstrap: BOOTSTRAP })
    // The first life accepts the requests and dies before doing them: its background work never runs.
    const dying = createRegistryService({
      db: first.store.db.withTables<RegistryTables>(),
      checkDocument: async (data, bodyText) =>
        checkSchemaDocument(data, bodyText, createAjv({ allErrors: true })),
      compatibility: {
        check: async (candidate, reference) =>
          checkCompatibility(candidate, reference, { ajv: createAjv() }),
      },
      clock: systemClock,
      background: { run: () => undefined },
    })
    const initiator = {
      organizationId: BOOTSTRAP.organizationId,
      apiKeyId: BOOTSTRAP.apiKeyId,
      isAdmin: true,
    }
    const deployed = objectSchema('com.acme', 'resumed', '1-0-0', { n: { type: 'integer' } })
    expect((await dying.validate(BOOTSTRAP.organizationId, { data: deployed })).success).toBe(true)
    const validation = await dying.validateLater(BOOTSTRAP.organizationId, {
      data: objectSchema('com.acme', 'resumed', '1-0-1', { n: { type: 'integer' } }),
    })
    const deployment = await dying.deployLater(
      BOOTSTRAP.organizationId,
      {
        source: 'VALIDATED',
        target: 'DEV',
        vendor: 'com.acme',
        name: 'resumed',
        format: 'jsonschema',
        version: '1-0-0',
      },
      { patch: false, initiator },
    )
    expect([validation.completed, deployment.completed]).toEqual([false, false])
    await first.close()

    const second = await open(database, { bootstrap: BOOTSTRAP })
    const client = await apiClient(
      { baseUrl: await second.http.listen({ host: '127.0.0.1', port: 0 }) },
      BOOTSTRAP.organizationId,
      BOOTSTRAP.apiKeyId,
      BOOTSTRAP.apiKey,
    )
    const finished = (path: string) =>
      pollUntil(
        async () => (await client.call('GET', path)).body,
        (request) => request.completed === true,
        `${path} to complete`,
      )
    expect(
      await finished(`/data-structures/v1/validation-requests/${validation.id}`),
    ).toMatchObject({ success: true, message: 'iglu:com.acme/resumed/jsonschema/1-0-1 is valid' })
    const done = await finished(`/data-structures/v1/deployment-requests/${deployment.id}`)
    expect(done).toMatchObject({ success: true, deployment: { version: '1-0-0', env: 'DEV' } })
    expect(
      (
        await client.call(
          'GET',
          `/data-structures/v1/${done.dataStructureHash}/versions/1-0-0?env=DEV`,
        )
      ).body,
    ).toEqual(deployed)
  })

  it('keeps a configured FLOE_JWT_SECRET out of the store', async () => {
    const database = await fresh()
    const app = await open(database, { jwtSecret: 'k'.repeat(40) })
    const secrets = await allTables(app.store.db).selectFrom('server_secrets').selectAll().execute()
    expect(secrets).toEqual([])
  })
})
