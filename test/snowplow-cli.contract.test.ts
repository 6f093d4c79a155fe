import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  checkoutDeployment,
  checkoutFile,
  MANAGED_FROM,
  useCliSession,
} from './support/snowplow-cli-session.js'
import { cliRequest, RawBody } from './support/snowplow-cli-wire.js'

// Replays, in order, the requests snowplow-cli makes for each command (headers, compact bodies in
// Go struct order, no Content-Type), as ../shared/reference/snowplow-cli.md lists them, and checks
// what the tool reads back. The tool itself cannot be built here (no Go module proxy). Its data
// products' commands (`dp`) are in snowplow-cli-dp.contract.test.ts.

/** The tool's own hash of a data structure: hex SHA-256 of `{org}-{vendor}-{name}-{format}`. */
const toolHash = (org: string, vendor: string, name: string, format: string) =>
  createHash('sha256').update(`${org}-${vendor}-${name}-${format}`).digest('hex')

describe('snowplow-cli on the wire', () => {
  const cli = useCliSession()
  const call = (method: string, path: string, body?: unknown) => cli().call(method, path, body)

  it('takes a host configured with a trailing slash, whose paths begin with //', async () => {
    const startup = cli().server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected first-start credentials')
    const answer = await cliRequest(
      `${cli().server.baseUrl}/`,
      'GET',
      `/api/msc/v1/organizations/${cli().org}/credentials/v3/token`,
      { headers: { 'X-API-KEY-ID': startup.apiKeyId, 'X-API-KEY': startup.apiKey } },
    )
    expect(answer.status).toBe(200)
    expect(typeof answer.body.accessToken).toBe('string')
  })

  it('status: the organizations of the token include the configured one', async () => {
    const answer = await cliRequest(cli().server.baseUrl, 'GET', '/api/msc/v1/organizations', {
      token: cli().token,
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([{ id: cli().org, name: expect.any(String) }])
  })

  it('ds validate: validation 201 with success and findings, list, deployments, destinations', async () => {
    const validation = await call(
      'POST',
      '/data-structures/v1/validation-requests',
      checkoutFile('1-0-0', { total: { type: 'number', maximum: 100000 } }),
    )
    expect(validation.status).toBe(201)
    expect(validation.body).toMatchObject({ success: true, message: expect.any(String) })
    for (const list of ['errors', 'warnings', 'info'] as const)
      expect(validation.body[list] === null || Array.isArray(validation.body[list])).toBe(true)
    expect((await call('GET', '/data-structures/v1')).status).toBe(200)
    const destinations = await call('GET', '/destinations/v3')
    expect(destinations.status).toBe(200)
    expect(destinations.body).toEqual([])
  })

  it('ds publish dev: validate, deploy VALIDATED → DEV, then lock the metadata', async () => {
    expect(
      (
        await call(
          'POST',
          '/data-structures/v1/validation-requests',
          checkoutFile('1-0-0', { total: { type: 'number', maximum: 100000 } }),
        )
      ).status,
    ).toBe(201)
    const deployed = await call(
      'POST',
      '/data-structures/v1/deployment-requests',
      checkoutDeployment('1-0-0', 'VALIDATED', 'DEV'),
    )
    expect(deployed.status).toBe(201)
    expect(deployed.body.success).toBe(true)
    const hash = toolHash(cli().org, 'com.acme', 'checkout', 'jsonschema')
    const locked = await call('PATCH', `/data-structures/v1/${hash}/meta`, {
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    expect(locked.status).toBe(200)
    const listed = (await call('GET', '/data-structures/v1')).body as {
      hash: string
      meta: Record<string, unknown>
      deployments: { version: string; env: string; contentHash: string }[]
    }[]
    const record = listed.find((structure) => structure.hash === hash)
    expect(record?.meta).toMatchObject({
      hidden: false,
      schemaType: 'event',
      customData: { team: 'web' },
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    expect(record?.deployments).toEqual([
      expect.objectContaining({ version: '1-0-0', env: 'DEV', contentHash: expect.any(String) }),
    ])
    const history = await call(
      'GET',
      `/data-structures/v1/${hash}/deployments?from=0&size=1000000000`,
    )
    expect(history.status).toBe(200)
    expect(history.body.map((d: { version: string }) => d.version)).toEqual(['1-0-0'])
  })

  it('ds validate of a new version: the migration check against the deployed one', async () => {
    /** The tool's migration check of `targetSchema` against com.acme/{name} 1-0-0. */
    const migrationTo = (targetSchema: object, name = 'checkout') =>
      call('POST', '/data-structures/v1/schema-migrations', {
        destinationType: 'snowflake',
        sourceSchemaKey: { vendor: 'com.acme', name, format: 'jsonschema', version: '1-0-0' },
        targetSchema,
      })
    const next = checkoutFile('1-0-1', {
      total: { type: 'number', maximum: 100000 },
      coupon: { type: 'string', maxLength: 20 },
    })
    const migration = await migrationTo(next.data)
    expect(migration.status).toBe(200)
    // Past the published size limits (1 000 properties in one object), as a validation refuses it.
    const wide = Object.fromEntries(
      Array.from({ length: 1001 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 8 }]),
    )
    const tooLarge = await migrationTo(checkoutFile('1-0-1', wide).data)
    expect(tooLarge.status).toBe(422)
    expect(tooLarge.body.message).toMatch(/^targetSchema: properties has 1001 properties/)
    expect(migration.body).toEqual({
      changeType: 'minor',
      migrations: [
        {
          migrationType: 'addition',
          changeType: 'minor',
          path: '/properties/coupon',
          message: 'coupon is added',
        },
      ],
    })
    const retyped = await migrationTo(
      checkoutFile('2-0-0', { total: { type: 'string', maxLength: 10 } }).data,
    )
    expect(retyped.body.changeType).toBe('major')
    expect(retyped.body.migrations[0]).toMatchObject({
      migrationType: 'type-change',
      path: '/properties/total',
    })
    const unchanged = await migrationTo(
      checkoutFile('1-0-0', { total: { type: 'number', maximum: 100000 } }).data,
    )
    expect(unchanged.body).toEqual({ changeType: 'no-change', migrations: [] })
    // A target that is not a JSON Schema has no migration: refused, naming the field and where.
    const notSchema = await migrationTo({ ...next.data, properties: { total: { type: 5 } } })
    expect(notSchema.status).toBe(400)
    expect(notSchema.body).toMatchObject({
      code: 'INVALID_TARGET_SCHEMA',
      details: { field: 'targetSchema' },
    })
    expect(notSchema.body.message).toMatch(
      /^targetSchema is not a valid JSON Schema: \/properties\/total\/type/,
    )
    const tooDeep = await migrationTo({
      ...next.data,
      properties: { total: JSON.parse('{"items":'.repeat(120) + '{}' + '}'.repeat(120)) },
    })
    expect(tooDeep.status).toBe(400)
    expect(tooDeep.body).toMatchObject({
      code: 'SCHEMA_TOO_DEEP',
      details: { field: 'targetSchema' },
    })
    const unknown = await migrationTo(next.data, 'nothing')
    expect(unknown.status).toBe(404)
    expect(typeof unknown.body.message).toBe('string')
  })

  it('ds publish prod: lock the metadata, then deploy DEV → PROD', async () => {
    const hash = toolHash(cli().org, 'com.acme', 'checkout', 'jsonschema')
    expect(
      (
        await call('PATCH', `/data-structures/v1/${hash}/meta`, {
          hidden: false,
          schemaType: 'event',
          customData: { team: 'web' },
          lockStatus: 'locked',
          managedFrom: MANAGED_FROM,
        })
      ).status,
    ).toBe(200)
    const promoted = await call(
      'POST',
      '/data-structures/v1/deployment-requests',
      checkoutDeployment('1-0-0', 'DEV', 'PROD'),
    )
    expect(promoted.status).toBe(201)
    expect(promoted.body.success).toBe(true)
  })

  it('ds download: list, the latest schemas with their self, and drafts', async () => {
    const listed = await call('GET', '/data-structures/v1')
    expect(listed.body.some((s: { meta: { schemaType: unknown } }) => s.meta.schemaType)).toBe(true)
    const latest = await call('GET', '/data-structures/v1/schemas/versions?latest=true')
    expect(latest.status).toBe(200)
    expect(latest.body.length).toBeGreaterThan(0)
    for (const schema of latest.body)
      expect(Object.keys(schema.self).sort()).toEqual(['format', 'name', 'vendor', 'version'])
    const drafts = await call('GET', '/data-structure-drafts/v1/schemas')
    expect(drafts.status).toBe(200)
    expect(drafts.body).toEqual([])
  })

  it('refuses a body that is not JSON with 400, saying where, whatever its content type', async () => {
    const answer = await call(
      'POST',
      '/data-structures/v1/validation-requests',
      new RawBody('{"a":'),
    )
    expect(answer.status).toBe(400)
    expect(answer.body.message).toMatch(/^Body is not valid JSON: /)
    expect(answer.body.message).not.toMatch(/content-type/i)
  })

  it('refuses a body of another media type with 415, still naming the problem', async () => {
    const answer = await cliRequest(
      cli().server.baseUrl,
      'POST',
      `/api/msc/v1/organizations/${cli().org}/data-structures/v1/validation-requests`,
      { token: cli().token, headers: { 'Content-Type': 'application/xml' }, body: {} },
    )
    expect(answer.status).toBe(415)
    expect(typeof answer.body.message).toBe('string')
  })
})
