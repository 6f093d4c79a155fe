import { readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, type TestDatabase } from './support/test-databases.js'
import { floeCli, startFloe, type FloeProcess } from './support/floe-process.js'

function field(banner: string, label: string): string {
  const value = new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1]
  if (value === undefined) throw new Error(`no "${label}" in:\n${banner}`)
  return value
}

describe.each(backends)('floe start and the CLI on $name', (backend) => {
  let database: TestDatabase
  let env: Record<string, string>
  let server: FloeProcess | null = null

  beforeAll(async () => {
    database = await backend.create({ onDisk: true })
    env =
      database.config.kind === 'postgres'
        ? { DATABASE_URL: database.config.url }
        : { FLOE_DATA_DIR: database.config.dataDir ?? '' }
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
  })

  it('prints the bootstrap credentials once, serves health, docs and the token exchange, and stops on SIGTERM', async () => {
    server = await startFloe([], env)
    const organizationId = field(server.banner, 'organization id')
    const apiKeyId = field(server.banner, 'API key id')
    const apiKey = field(server.banner, 'API key secret')
    expect(server.banner).toContain(
      `curl -s -H 'X-API-Key-Id: ${apiKeyId}' -H 'X-API-Key: ${apiKey}'`,
    )

    const health = await fetch(`${server.baseUrl}/health`)
    expect([health.status, await health.text()]).toEqual([200, 'ok'])
    const inspector = /Events as they arrive: (\S+)/.exec(server.banner)?.[1]
    expect(inspector).toBe(`${server.baseUrl}/micro/ui/`)
    expect((await fetch(inspector ?? '')).headers.get('content-type')).toBe(
      'text/html; charset=utf-8',
    )
    const docs = await fetch(`${server.baseUrl}/docs`)
    expect(docs.status).toBe(200)
    expect(await docs.text()).toContain('swagger')
    const openapi = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>
    }
    expect(Object.keys(openapi.paths)).toContain(
      '/api/msc/v1/organizations/{organizationId}/credentials/v3/token',
    )

    const token = await fetch(
      `${server.baseUrl}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`,
      {
        headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
      },
    )
    expect(token.status).toBe(200)

    if (backend.name === 'pglite') {
      const busy = await floeCli(['keys', 'list'], env)
      expect(busy.code).toBe(1)
      expect(busy.stderr).toContain('in use by process')
    }
    expect(await server.stop('SIGTERM')).toBe(0)
    server = null

    const keys = await floeCli(['keys', 'list'], env)
    expect(keys.code).toBe(0)
    expect(keys.stdout).toContain(apiKeyId)
    expect(keys.stdout).not.toContain(apiKey)
  })

  it('manages organizations and keys from the CLI, and the server honours them after a restart', async () => {
    const version = await floeCli(['--version'], env)
    const { version: packaged } = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string }
    expect([version.code, version.stdout]).toEqual([0, `${packaged}\n`])

    const org = await floeCli(['orgs', 'create', 'analytics'], env)
    expect(org.code).toBe(0)
    const organizationId = field(org.stdout, 'organization id')
    const created = await floeCli(
      ['keys', 'create', '--org', organizationId, '--description', 'ci key'],
      env,
    )
    expect(created.code).toBe(0)
    const apiKeyId = field(created.stdout, 'API key id')
    const apiKey = field(created.stdout, 'API key secret')
    expect((await floeCli(['keys', 'create', '--org', 'not-an-org'], env)).code).toBe(1)

    // Events kept in the database (--storage postgres) outlive the restart below.
    const storage = ['--storage', 'postgres', '--events-ttl', '1h']
    server = await startFloe(storage, env)
    expect(server.banner).not.toContain('API key secret')
    await fetch(`${server.baseUrl}/i?e=pp&p=web&aid=before-restart`)
    const exchange = () =>
      fetch(`${server!.baseUrl}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`, {
        headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
      })
    expect((await exchange()).status).toBe(200)
    await server.stop('SIGTERM')

    const revoked = await floeCli(['keys', 'revoke', apiKeyId], env)
    expect(revoked.code).toBe(0)
    expect((await floeCli(['keys', 'list', '--org', organizationId], env)).stdout).toMatch(
      /revoked/,
    )
    const notAnId = await floeCli(['keys', 'list', '--org', 'ORGANIZATION'], env)
    expect([notAnId.code, notAnId.stderr.trim()]).toEqual([
      1,
      expect.stringMatching(/^floe: .*ORGANIZATION/),
    ])
    expect(notAnId.stderr).not.toContain('    at ')
    server = await startFloe(storage, env)
    expect((await exchange()).status).toBe(401)
    const kept = (await (await fetch(`${server.baseUrl}/local/good`)).json()) as {
      event: { app_id: string }
    }[]
    expect(kept.map((e) => e.event.app_id)).toEqual(['before-restart'])
    await server.stop('SIGTERM')

    // Micro 4.x's --no-storage: the collector answers; the inspection API and its page are off.
    server = await startFloe(['--no-storage'], env)
    expect(server.banner).not.toContain('Events as they arrive')
    expect((await fetch(`${server.baseUrl}/i?e=pp&p=web`)).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/micro/all`)).status).toBe(404)
    await server.stop('SIGTERM')
    // Commander keeps the last of the two: a contradiction is refused instead of one picked.
    const both = await floeCli(['start', '--no-storage', '--storage', 'postgres'], env)
    expect([both.code, both.stderr]).toEqual([
      1,
      expect.stringContaining('--no-storage and --storage contradict each other'),
    ])
  })
})

describe('a first start that stops before showing its secret', () => {
  it('shows the first-start key with a new secret at the next start (here: its port was taken)', async () => {
    const pglite = backends.find((backend) => backend.name === 'pglite')
    if (pglite === undefined) throw new Error('the pglite backend is missing')
    const database = await pglite.create({ onDisk: true })
    const env = {
      FLOE_DATA_DIR: database.config.kind === 'pglite' ? (database.config.dataDir ?? '') : '',
    }
    const occupant = createServer()
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve))
    const { port } = occupant.address() as AddressInfo
    let server: FloeProcess | null = null
    try {
      // The store is set up and the key made, then listening fails: nothing was shown.
      const failed = await floeCli(
        ['start', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn'],
        env,
      )
      expect(failed.code).toBe(1)
      expect(failed.stdout + failed.stderr).not.toContain('API key secret')
      expect((await floeCli(['keys', 'list'], env)).stdout).toContain('created at first start')

      server = await startFloe([], env)
      const organizationId = field(server.banner, 'organization id')
      const apiKeyId = field(server.banner, 'API key id')
      const apiKey = field(server.banner, 'API key secret')
      const token = await fetch(
        `${server.baseUrl}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`,
        { headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey } },
      )
      expect(token.status).toBe(200)
      expect(await server.stop('SIGTERM')).toBe(0)

      // Shown once: the next start says nothing about it, and the secret still works.
      server = await startFloe([], env)
      expect(server.banner).not.toContain('API key secret')
      const again = await fetch(
        `${server.baseUrl}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`,
        { headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey } },
      )
      expect(again.status).toBe(200)
    } finally {
      await server?.stop('SIGKILL')
      await new Promise((resolve) => occupant.close(resolve))
      await database.drop()
    }
  }, 120_000)
})
