import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SchemaKey } from '../src/iglu/schema-key.js'
import { createIgluResolver } from '../src/inspection/resolver/iglu-resolver.js'
import {
  loadResolverConfig,
  ResolverConfigError,
} from '../src/inspection/resolver/resolver-config.js'
import {
  httpRepository,
  RepositoryFailure,
  type SchemaRepository,
} from '../src/inspection/resolver/schema-repositories.js'
import { bootstrapAdmin } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const key = (vendor: string, name: string): SchemaKey => ({
  vendor,
  name,
  format: 'jsonschema',
  version: { model: 1, revision: 0, addition: 0 },
})

/** A repository that counts lookups and knows the schemas it is given. */
function countingRepository(
  name: string,
  kind: SchemaRepository['kind'],
  known: string[],
  options: Partial<SchemaRepository> = {},
) {
  const calls: string[] = []
  const repository: SchemaRepository = {
    name,
    kind,
    priority: 0,
    vendorPrefixes: [],
    cacheable: kind !== 'registry',
    ...options,
    async lookup(k) {
      calls.push(`${k.vendor}/${k.name}`)
      if (name === 'broken') throw new RepositoryFailure('down')
      return known.includes(k.name) ? { self: { name: k.name } } : null
    },
  }
  return { repository, calls }
}

describe('the Iglu resolver', () => {
  it("tries the registry first, then vendor-prefix matches, the user's embedded and HTTP repositories, the bundled schemas, Iglu Central, then priority", async () => {
    const order: string[] = []
    const repo = (
      name: string,
      kind: SchemaRepository['kind'],
      priority: number,
      vendorPrefixes: string[] = [],
    ): SchemaRepository => ({
      name,
      kind,
      priority,
      vendorPrefixes,
      cacheable: true,
      lookup: async () => {
        order.push(name)
        return null
      },
    })
    const resolver = createIgluResolver({
      repositories: [
        repo('central', 'default', 0),
        repo('bundled', 'core', 0),
        repo('http low', 'http', 0),
        repo('embedded', 'embedded', 5),
        repo('http acme', 'http', 9, ['com.acme']),
        repo('registry', 'registry', 9),
        repo('http high', 'http', 3),
      ],
      cacheTtlMs: 1000,
      now: () => 0,
    })
    const missing = await resolver.resolve(key('com.acme', 'x'))
    expect(order).toEqual([
      'registry',
      'http acme',
      'embedded',
      'http low',
      'http high',
      'bundled',
      'central',
    ])
    expect(missing.kind === 'missing' && Object.keys(missing.history)).toEqual([
      'bundled',
      'central',
      'embedded',
      'http acme',
      'http high',
      'http low',
      'registry',
    ])
  })

  it('caches hits and misses for the TTL, counts attempts, reads the registry fresh, and reports failures', async () => {
    let now = 0
    const registry = countingRepository('registry', 'registry', [])
    const embedded = countingRepository('embedded', 'embedded', ['known'])
    const broken = countingRepository('broken', 'http', [])
    const resolver = createIgluResolver({
      repositories: [registry.repository, embedded.repository, broken.repository],
      cacheTtlMs: 1000,
      now: () => now,
    })
    expect(await resolver.resolve(key('v', 'known'))).toMatchObject({
      kind: 'found',
      repository: 'embedded',
    })
    await resolver.resolve(key('v', 'known'))
    expect(embedded.calls).toEqual(['v/known'])
    expect(registry.calls).toEqual(['v/known', 'v/known'])
    const first = await resolver.resolve(key('v', 'unknown'))
    await resolver.resolve(key('v', 'unknown'))
    expect(embedded.calls).toEqual(['v/known', 'v/unknown'])
    expect(first).toMatchObject({
      kind: 'missing',
      history: {
        broken: { errors: [{ error: 'RepoFailure', message: 'down' }], attempts: 1 },
        embedded: { errors: [{ error: 'NotFound' }], attempts: 1 },
      },
    })
    now = 1500
    const later = await resolver.resolve(key('v', 'unknown'))
    expect(embedded.calls).toEqual(['v/known', 'v/unknown', 'v/unknown'])
    expect(later).toMatchObject({
      kind: 'missing',
      history: { embedded: { attempts: 2, lastAttempt: new Date(1500).toISOString() } },
    })
  })
})

describe('the Iglu resolver without waiting', () => {
  it('answers only what resolve would answer at that moment, and leaves misses and unknown answers to it', async () => {
    let now = 0
    const deployed = new Set<string>()
    const registryKept = new Map<string, Record<string, unknown> | null>()
    // A registry that keeps its answers, like Floe's: peek tells what it keeps, a deployment clears it.
    const registry: SchemaRepository = {
      name: 'registry',
      kind: 'registry',
      priority: 0,
      vendorPrefixes: [],
      cacheable: false,
      async lookup(k) {
        const answer = deployed.has(k.name) ? { self: { name: k.name }, from: 'registry' } : null
        registryKept.set(k.name, answer)
        return answer
      },
      peek: (k) => registryKept.get(k.name),
    }
    const embedded = countingRepository('embedded', 'embedded', ['core', 'other'])
    const resolver = createIgluResolver({
      repositories: [registry, embedded.repository],
      cacheTtlMs: 1000,
      now: () => now,
    })

    expect(resolver.resolveKnown(key('v', 'core'))).toBeUndefined()
    const fromEmbedded = await resolver.resolve(key('v', 'core'))
    expect(fromEmbedded).toMatchObject({ kind: 'found', repository: 'embedded' })
    expect(resolver.resolveKnown(key('v', 'core'))).toEqual(fromEmbedded)
    expect(embedded.calls).toEqual(['v/core'])

    // Deployed to the registry: once the registry forgets its answer, the embedded one must not be given.
    deployed.add('core')
    registryKept.clear()
    expect(resolver.resolveKnown(key('v', 'core'))).toBeUndefined()
    const fromRegistry = await resolver.resolve(key('v', 'core'))
    expect(fromRegistry).toMatchObject({
      kind: 'found',
      repository: 'registry',
      schema: { from: 'registry' },
    })
    expect(resolver.resolveKnown(key('v', 'core'))).toEqual(fromRegistry)

    // Misses carry a history that only resolve builds.
    expect(await resolver.resolve(key('v', 'nowhere'))).toMatchObject({ kind: 'missing' })
    expect(resolver.resolveKnown(key('v', 'nowhere'))).toBeUndefined()

    // An expired cached answer must be asked again.
    await resolver.resolve(key('v', 'other'))
    expect(resolver.resolveKnown(key('v', 'other'))).toMatchObject({ repository: 'embedded' })
    now = 1000
    expect(resolver.resolveKnown(key('v', 'other'))).toBeUndefined()

    // A repository that cannot peek is always asked.
    const unpeekable = createIgluResolver({
      repositories: [
        countingRepository('registry', 'registry', []).repository,
        embedded.repository,
      ],
      cacheTtlMs: 1000,
      now: () => now,
    })
    await unpeekable.resolve(key('v', 'core'))
    expect(unpeekable.resolveKnown(key('v', 'core'))).toBeUndefined()
  })
})

describeWithSharedData('repositories', () => {
  let server: TestApp
  let dir: string
  let igluBase: string
  let apiKey: string

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const admin = await bootstrapAdmin(server)
    await deployToDev(
      admin,
      objectSchema('com.acme', 'order', '1-0-0', { id: { type: 'string', maxLength: 10 } }),
    )
    igluBase = `${server.baseUrl}/iglu/${admin.organizationId}/dev/api`
    apiKey = server.app.startup.kind === 'initial' ? server.app.startup.apiKey : ''
    dir = mkdtempSync(path.join(tmpdir(), 'floe-resolver-'))
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('reads an Iglu Server over HTTP with an apikey, and tells a miss from a failure', async () => {
    const repository = httpRepository({ name: 'Floe', uri: igluBase, apiKey })
    expect(await repository.lookup(key('com.acme', 'order'))).toMatchObject({
      self: { name: 'order' },
    })
    expect(await repository.lookup(key('com.acme', 'nothing'))).toBeNull()
    // Without a key the schema is private, so not found (Iglu Server's 404): a miss.
    expect(
      await httpRepository({ name: 'no key', uri: igluBase }).lookup(key('com.acme', 'order')),
    ).toBeNull()
    await expect(
      httpRepository({
        name: 'no such environment',
        uri: igluBase.replace('/dev/', '/qa/'),
      }).lookup(key('com.acme', 'order')),
    ).rejects.toThrow(RepositoryFailure)
    await expect(
      httpRepository({ name: 'closed', uri: 'http://127.0.0.1:9', timeoutMs: 2000 }).lookup(
        key('com.acme', 'order'),
      ),
    ).rejects.toThrow(RepositoryFailure)
  })

  it('loads a Snowplow resolver configuration', async () => {
    const file = path.join(dir, 'resolver.json')
    writeFileSync(
      file,
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.iglu/resolver-config/jsonschema/1-0-1',
        data: {
          cacheSize: 500,
          repositories: [
            {
              name: 'Local',
              priority: 0,
              vendorPrefixes: [],
              connection: { embedded: { path: path.relative(dir, IGLU_CENTRAL) } },
            },
            {
              name: 'Floe',
              priority: 1,
              vendorPrefixes: ['com.acme'],
              connection: { http: { uri: igluBase, apikey: apiKey } },
            },
          ],
        },
      }),
    )
    const [local, floe] = loadResolverConfig(file)
    expect(local).toMatchObject({ name: 'Local', kind: 'embedded' })
    expect(
      await local?.lookup({
        vendor: 'com.snowplowanalytics.snowplow',
        name: 'link_click',
        format: 'jsonschema',
        version: { model: 1, revision: 0, addition: 1 },
      }),
    ).toMatchObject({ self: { name: 'link_click' } })
    expect(floe).toMatchObject({ name: 'Floe', kind: 'http', vendorPrefixes: ['com.acme'] })
    expect(await floe?.lookup(key('com.acme', 'order'))).toMatchObject({ self: { name: 'order' } })

    writeFileSync(file, JSON.stringify({ data: { repositories: [{ name: 'a', connection: {} }] } }))
    expect(() => loadResolverConfig(file)).toThrow(ResolverConfigError)
    writeFileSync(file, '{')
    expect(() => loadResolverConfig(file)).toThrow(/resolver\.json/)
  })

  it('reads an embedded repository at an absolute path, or beside the file, and refuses one that is neither', async () => {
    const schemas = path.join(dir, 'absolute-iglu')
    const at = path.join(schemas, 'schemas', 'com.acme', 'local', 'jsonschema')
    mkdirSync(at, { recursive: true })
    writeFileSync(
      path.join(at, '1-0-0'),
      JSON.stringify({ self: { name: 'local' }, type: 'object' }),
    )
    const file = path.join(dir, 'embedded.json')
    const config = (embeddedPath: string) =>
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.iglu/resolver-config/jsonschema/1-0-1',
        data: {
          cacheSize: 500,
          repositories: [
            {
              name: 'Local',
              priority: 0,
              vendorPrefixes: [],
              connection: { embedded: { path: embeddedPath } },
            },
          ],
        },
      })
    for (const embeddedPath of [schemas, '/absolute-iglu', 'absolute-iglu']) {
      writeFileSync(file, config(embeddedPath))
      const [local] = loadResolverConfig(file)
      expect(await local?.lookup(key('com.acme', 'local')), embeddedPath).toMatchObject({
        self: { name: 'local' },
      })
    }
    writeFileSync(file, config('/no/such/iglu'))
    expect(() => loadResolverConfig(file)).toThrow(
      /embedded path \/no\/such\/iglu is not a directory/,
    )
  })

  it('validates events against a custom registry given like MICRO_IGLU_REGISTRY_URL', async () => {
    const inspecting = await startTestApp(
      testConfig({ inspection: { customRegistry: { url: igluBase, apiKey } } }),
    )
    try {
      const event = new URLSearchParams({
        e: 'ue',
        p: 'web',
        tv: 't',
        ue_pr: JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
          data: { schema: 'iglu:com.acme/order/jsonschema/1-0-0', data: { id: 'o-1' } },
        }),
      })
      await fetch(`${inspecting.baseUrl}/com.snowplowanalytics.snowplow/tp2?${event}`)
      expect(await (await fetch(`${inspecting.baseUrl}/local/all`)).json()).toEqual({
        total: 1,
        good: 1,
        bad: 0,
      })
      const lookup = await (
        await fetch(`${inspecting.baseUrl}/local/iglu/com.acme/order/jsonschema/1-0-0`)
      ).json()
      expect(lookup).toMatchObject({ self: { vendor: 'com.acme', name: 'order' } })
    } finally {
      await inspecting.close()
    }
  })
})
