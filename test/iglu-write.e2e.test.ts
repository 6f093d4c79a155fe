import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { floeCli, startFloe, type FloeProcess } from './support/floe-process.js'
import { objectSchema } from './support/registry-builders.js'

// Issue 31, item 3, end to end: Iglu keys made with `floe keys create`, and a directory pushed as
// igluctl's `static push` does it (one PUT per schema, with the apikey header), against `floe start`.

function field(text: string, label: string): string {
  const value = new RegExp(`${label}:\\s+(\\S+)`).exec(text)?.[1]
  if (value === undefined) throw new Error(`no "${label}" in:\n${text}`)
  return value
}

describe('the Iglu write API against floe start, with keys from the CLI', () => {
  let dataDir: string
  let env: Record<string, string>
  let server: FloeProcess | null = null
  let organizationId: string
  const keys = { read: '', write: '' }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'floe-iglu-write-'))
    env = { FLOE_DATA_DIR: dataDir }
    const org = await floeCli(['orgs', 'create', 'schemas-team'], env)
    organizationId = field(org.stdout, 'organization id')
    for (const permission of ['read', 'write'] as const) {
      const created = await floeCli(
        [
          'keys',
          'create',
          '--org',
          organizationId,
          '--iglu-vendor-prefix',
          'com.acme',
          '--iglu-permission',
          permission,
        ],
        env,
      )
      expect(created.code, created.stderr).toBe(0)
      expect(created.stdout).toContain(`an Iglu key (${permission} com.acme`)
      keys[permission] = field(created.stdout, 'API key secret')
    }
    const refused = await floeCli(
      ['keys', 'create', '--org', organizationId, '--iglu-vendor-prefix', 'com.acme', '--admin'],
      env,
    )
    expect(refused.code).toBe(1)
    const listed = await floeCli(['keys', 'list', '--org', organizationId], env)
    expect(listed.stdout).toContain('write com.acme')
    expect(listed.stdout).toContain('read com.acme')
    server = await startFloe([], env)
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** What igluctl static push sends for one file: PUT {root}/api/schemas/{path}?isPublic=… with apikey. */
  const push = (schema: ReturnType<typeof objectSchema>, key: string) => {
    const { vendor, name, format, version } = schema.self
    return fetch(
      `${server!.baseUrl}/iglu/${organizationId}/dev/api/schemas/${vendor}/${name}/${format}/${version}?isPublic=false`,
      {
        method: 'PUT',
        headers: { apikey: key, 'content-type': 'application/json' },
        body: JSON.stringify(schema, null, 2),
      },
    )
  }

  it('pushes a directory with the write key, again as updates, and refuses the read key', async () => {
    const directory = [
      objectSchema('com.acme', 'signup', '1-0-0', { email: { type: 'string', maxLength: 200 } }),
      objectSchema('com.acme', 'signup', '1-0-1', {
        email: { type: 'string', maxLength: 200 },
        plan: { type: ['string', 'null'], maxLength: 20 },
      }),
      objectSchema('com.acme.web', 'page', '1-0-0', { path: { type: 'string', maxLength: 500 } }),
    ]
    for (const schema of directory) {
      const answer = await push(schema, keys.write)
      expect([answer.status, ((await answer.json()) as { message: string }).message]).toEqual([
        201,
        'Schema created',
      ])
    }
    for (const schema of directory) {
      const answer = await push(schema, keys.write)
      expect([answer.status, ((await answer.json()) as { updated: boolean }).updated]).toEqual([
        200,
        true,
      ])
    }
    const byReader = await push(directory[0]!, keys.read)
    expect([byReader.status, await byReader.json()]).toMatchObject([
      403,
      { message: 'Authentication error: not authorized' },
    ])
    const listed = await fetch(
      `${server!.baseUrl}/iglu/${organizationId}/dev/api/schemas/com.acme/signup/jsonschema/1`,
      {
        headers: { apikey: keys.read },
      },
    )
    expect(await listed.json()).toEqual([
      'iglu:com.acme/signup/jsonschema/1-0-0',
      'iglu:com.acme/signup/jsonschema/1-0-1',
    ])
    const described = await fetch(`${server!.baseUrl}/iglu/${organizationId}/dev/api/meta/server`, {
      headers: { apikey: keys.write },
    })
    expect(await described.json()).toMatchObject({
      authInfo: { vendor: 'com.acme', schema: 'CREATE' },
      schemaCount: 3,
    })
  })
})
