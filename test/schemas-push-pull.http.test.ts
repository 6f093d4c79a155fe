import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService, systemClock, type AuthTables } from '../src/auth/index.js'
import { pullSchemasCommand, pushSchemasCommand } from '../src/cli/index.js'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { firstStartConnection, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 31, item 2: `floe schemas push` and `pull` against a real server over HTTP.

const root = mkdtempSync(path.join(tmpdir(), 'floe-push-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function writeTree(dir: string, files: Record<string, string>) {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  return dir
}

const product = objectSchema('com.acme', 'product', '1-0-0', {
  sku: { type: 'string', maxLength: 9 },
})
/** `cart` refers to `product` by Iglu URI: it must be published after it, whatever the names say. */
const cart = (version: string) => ({
  ...objectSchema('com.acme', 'a_cart', version, {
    quantity: { type: 'integer', minimum: 0, maximum: 9 },
  }),
  definitions: { item: { $ref: 'iglu:com.acme/product/jsonschema/1-0-0#' } },
})
/** A version that adds an optional property to `cart`. */
const addition = (version: string) => {
  const schema = cart(version)
  return {
    ...schema,
    properties: {
      ...schema.properties,
      note: { description: 'note', type: 'string', maxLength: 9 },
    },
  }
}
const FILES = {
  // Laid out three ways: the registry keeps each as it was written.
  'com.acme/product/jsonschema/1-0-0': `${JSON.stringify(product, null, 4)}\n`,
  'com.acme/a_cart/jsonschema/1-0-0': `${JSON.stringify(cart('1-0-0'))}\n`,
  'com.acme/a_cart/jsonschema/1-0-1': `${JSON.stringify(addition('1-0-1'), null, 2)}\n`,
}

describe('floe schemas push and pull', () => {
  let floe: TestApp
  let admin: ApiClient
  let flags: { server: string; org: string; keyId: string; key: string }
  const push = (dir: string, options: object = {}) =>
    pushSchemasCommand(dir, { ...flags, ...options })

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    const connection = firstStartConnection(floe)
    flags = {
      server: connection.serverUrl,
      org: connection.organizationId,
      keyId: connection.apiKeyId,
      key: connection.apiKey,
    }
  })
  afterAll(async () => floe?.close())

  const deployed = async () =>
    (
      (await admin.call('GET', '/data-structures/v1')).body as {
        name: string
        deployments: { env: string; version: string }[]
      }[]
    )
      .flatMap((s) => s.deployments.map((d) => `${s.name} ${d.env} ${d.version}`))
      .sort()

  it('plans, pushes in dependency and version order, and pushes nothing the second time', async () => {
    const dir = writeTree(path.join(root, 'tree'), FILES)
    const plan = await push(dir, { dryRun: true })
    expect(plan).toEqual({
      exitCode: 0,
      output: [
        'deploy DEV   iglu:com.acme/product/jsonschema/1-0-0',
        'deploy DEV   iglu:com.acme/a_cart/jsonschema/1-0-0',
        'deploy DEV   iglu:com.acme/a_cart/jsonschema/1-0-1',
        'dry run: nothing pushed',
        '',
      ].join('\n'),
    })
    expect(await deployed()).toEqual([])
    const first = await push(dir)
    expect([first.exitCode, first.output.trimEnd().split('\n').at(-1)]).toEqual([
      0,
      '3 deployed to DEV, 0 to PROD, 0 already there',
    ])
    expect(await deployed()).toEqual(['a_cart DEV 1-0-1', 'product DEV 1-0-0'])
    const again = await push(dir)
    expect(again.output.trimEnd().split('\n').at(-1)).toBe(
      '0 deployed to DEV, 0 to PROD, 3 already there',
    )
  })

  it('pulls every version back byte for byte, and leaves what is already so', async () => {
    const pulled = path.join(root, 'pulled')
    const outcome = await pullSchemasCommand(pulled, flags)
    expect(outcome.output.trimEnd().split('\n').at(-1)).toBe('3 written, 0 unchanged (DEV)')
    for (const [file, text] of Object.entries(FILES))
      expect(readFileSync(path.join(pulled, file), 'utf8')).toBe(text)
    expect((await pullSchemasCommand(pulled, flags)).output).toBe('0 written, 3 unchanged (DEV)\n')
  })

  it('names what it cannot write, writes the rest, and refuses a file as the directory', async () => {
    const blocked = path.join(root, 'blocked')
    // A folder where one version's file goes.
    mkdirSync(path.join(blocked, 'com.acme/product/jsonschema/1-0-0'), { recursive: true })
    const outcome = await pullSchemasCommand(blocked, flags)
    expect(outcome.exitCode).toBe(1)
    const lines = outcome.output.trimEnd().split('\n')
    expect(lines).toContain(
      `cannot write ${path.join(blocked, 'com.acme/product/jsonschema/1-0-0')}: EISDIR`,
    )
    expect(lines.at(-1)).toBe('2 written, 0 unchanged, 1 not pulled (DEV)')
    const aFile = path.join(root, 'a-file')
    writeFileSync(aFile, 'not a folder')
    expect(await pullSchemasCommand(aFile, flags)).toEqual({
      exitCode: 2,
      output: '',
      errorOutput: `floe: ${aFile} is not a directory\n`,
    })
  })

  it('promotes to PROD through DEV, once, and refuses a PROD push by a key that is not admin', async () => {
    const dir = path.join(root, 'tree')
    const prod = await push(dir, { env: 'prod' })
    expect(prod.output.trimEnd().split('\n').at(-1)).toBe(
      '0 deployed to DEV, 3 to PROD, 0 already there',
    )
    expect((await push(dir, { env: 'prod' })).output).toMatch(
      /0 deployed to DEV, 0 to PROD, 3 already there\n$/,
    )

    writeTree(path.join(root, 'more'), {
      ...FILES,
      'com.acme/a_cart/jsonschema/1-0-2': `${JSON.stringify(addition('1-0-2'))}\n`,
    })
    const keys = createCredentialsService({
      db: floe.app.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const reader = await keys.createApiKey({ organizationId: flags.org, isAdmin: false })
    const refused = await push(path.join(root, 'more'), {
      env: 'prod',
      keyId: reader.key.id,
      key: reader.secret,
    })
    expect(refused.exitCode).toBe(1)
    expect(refused.output).toMatch(
      /deploy PROD {2}iglu:com.acme\/a_cart\/jsonschema\/1-0-2: deployment to PROD refused: 403/,
    )
    // The DEV step before it went through.
    expect(await deployed()).toContain('a_cart DEV 1-0-2')
  })

  it('refuses content that differs from DEV unless --patch, or from PROD, and pushes nothing from a directory with errors', async () => {
    const note = (description: string) => ({
      'com.acme/note/jsonschema/1-0-0': `${JSON.stringify({ ...objectSchema('com.acme', 'note', '1-0-0', {}), description })}\n`,
    })
    expect((await push(writeTree(path.join(root, 'note'), note('first')))).exitCode).toBe(0)
    const changed = writeTree(path.join(root, 'note-changed'), note('second'))
    expect(await push(changed)).toEqual({
      exitCode: 1,
      output:
        'refused      iglu:com.acme/note/jsonschema/1-0-0: in DEV with other content: --patch replaces it there\nnothing pushed: 1 refused\n',
    })
    expect((await push(changed, { patch: true })).output).toBe(
      'patch DEV    iglu:com.acme/note/jsonschema/1-0-0\n1 deployed to DEV, 0 to PROD, 0 already there\n',
    )
    const inProd = writeTree(path.join(root, 'product-changed'), {
      'com.acme/product/jsonschema/1-0-0': `${JSON.stringify({ ...product, description: 'changed' })}\n`,
    })
    expect((await push(inProd, { patch: true })).output).toMatch(
      /^refused {6}iglu:com.acme\/product\/jsonschema\/1-0-0: in PROD with other content, and PROD versions never change: bump the version\n/,
    )
    const broken = writeTree(path.join(root, 'broken'), { 'com.acme/x/jsonschema/1-0-0': '{' })
    const stopped = await push(broken)
    expect(stopped.exitCode).toBe(1)
    expect(stopped.output).toMatch(/nothing pushed: 1 errors/)
  })

  it('names what is missing from the connection', async () => {
    await expect(
      pushSchemasCommand(path.join(root, 'tree'), { server: floe.baseUrl }),
    ).rejects.toThrow(/the organization: --org, or SNOWPLOW_CONSOLE_ORG_ID[\s\S]*the API key/)
    await expect(push(path.join(root, 'tree'), { key: 'wrong-secret-0123456789' })).rejects.toThrow(
      /the key was refused \(401/,
    )
  })
})
