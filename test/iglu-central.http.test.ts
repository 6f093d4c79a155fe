import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import type { ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'
import { loadIgluCentral } from './support/shared-data.js'

describe.each(backends)(
  'every Iglu Central schema through validate and deploy on $name',
  (backend) => {
    let admin: ApiClient
    let baseUrl = ''
    let stop: () => Promise<void> = async () => undefined
    const corpus = loadIgluCentral()

    beforeAll(async () => {
      let server
      ;({ server, admin, stop } = await startAdminApp(backend))
      baseUrl = server.baseUrl
    })
    afterAll(async () => stop())

    it('validates and deploys all of them to DEV, with no ERROR-level finding', async () => {
      expect(corpus.length).toBeGreaterThanOrEqual(600)
      const withErrors: string[] = []
      const notDeployed: string[] = []
      let warned = 0
      for (const { vendor, name, version, text } of corpus) {
        const uri = `iglu:${vendor}/${name}/jsonschema/${version}`
        // The file's own text, as a client sends it: its numbers as written.
        const validation = await admin.call(
          'POST',
          '/data-structures/v1/validation-requests',
          `{"meta":{"hidden":false},"data":${text}}`,
        )
        expect(validation.status).toBe(201)
        if (validation.body.success !== true) {
          withErrors.push(`${uri}: ${(validation.body.errors ?? []).join('; ')}`)
          continue
        }
        if (validation.body.warnings !== null) warned++
        const deployment = await admin.call('POST', '/data-structures/v1/deployment-requests', {
          source: 'VALIDATED',
          target: 'DEV',
          vendor,
          name,
          format: 'jsonschema',
          version,
          message: 'Iglu Central',
        })
        if (deployment.status !== 201)
          notDeployed.push(`${uri}: ${deployment.status} ${deployment.body.message}`)
      }
      console.log(
        `Iglu Central: ${corpus.length} schemas, ${withErrors.length} with ERROR findings, ${warned} with warnings, ${notDeployed.length} refused at deployment`,
      )
      expect(withErrors).toEqual([])
      expect(notDeployed).toEqual([])
      const listed = await admin.callAt(
        'GET',
        `/iglu/${admin.organizationId}/dev/api/schemas`,
        undefined,
      )
      expect(listed.body).toHaveLength(corpus.length)
    })

    it('serves every one back as it was sent: the Console read byte for byte after whitespace, the Iglu read with every number as written', async () => {
      const read = async (path: string) =>
        (
          await fetch(`${baseUrl}${path}`, {
            headers: { authorization: `Bearer ${admin.accessToken}` },
          })
        ).text()
      const changed: string[] = []
      let withNumbers = 0
      for (const { vendor, name, version, text } of corpus) {
        const hash = dataStructureHash(admin.organizationId, vendor, name, 'jsonschema')
        const served = await read(
          `/api/msc/v1/organizations/${admin.organizationId}/data-structures/v1/${hash}/versions/${version}?env=DEV`,
        )
        const iglu = await read(
          `/iglu/${admin.organizationId}/dev/api/schemas/${vendor}/${name}/jsonschema/${version}`,
        )
        const numbers = numberTokens(text)
        if (numbers.length > 0) withNumbers++
        if (withoutWhitespace(served) !== withoutWhitespace(text))
          changed.push(`${vendor}/${name}/${version}: the Console read differs`)
        if (numberTokens(iglu).sort().join() !== numbers.sort().join())
          changed.push(`${vendor}/${name}/${version}: the Iglu read rewrote a number`)
        else if (
          JSON.stringify(sorted(JSON.parse(iglu))) !== JSON.stringify(sorted(JSON.parse(text)))
        )
          changed.push(`${vendor}/${name}/${version}: the Iglu read differs`)
      }
      console.log(`Iglu Central round trip: ${corpus.length} schemas, ${withNumbers} with numbers`)
      expect(changed).toEqual([])
      expect(withNumbers).toBeGreaterThan(100)
    })
  },
)

/** The text without whitespace outside strings (a tokenizer of the test's own, not the product's). */
function withoutWhitespace(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (inString) {
      out += c
      if (c === '\\') out += text[++i] ?? ''
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
      out += c
    } else if (!/\s/.test(c)) out += c
  }
  return out
}

/** The number tokens of a JSON text, as written. */
function numberTokens(text: string): string[] {
  const bare = withoutWhitespace(text).replace(/"(?:[^"\\]|\\.)*"/g, '""')
  return bare.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []
}

/** Keys sorted at every level, to compare documents whatever their key order. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
    )
  return value
}
