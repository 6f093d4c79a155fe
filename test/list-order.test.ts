import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdminApp } from './support/admin-app.js'
import type { ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

/** Names whose order differs between code points and a linguistic collation (case, `_`, `-`). */
const NAMES = ['a', 'a_b', 'a-b', 'ab', 'Ab', 'B', 'Z', 'b']
const codePointOrder = (texts: readonly string[]) =>
  [...texts].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))

// Lists are in code point order on every backend, whatever collation the database was made
// with: an audit found an ICU database listing `a_b` before `a-b` and `ab` before `Ab`, while
// the Iglu lists and PGlite did not, so a client paging through saw another order per backend.
describe.each(backends)('list order on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend, { icuCollation: true }))
    for (const name of NAMES)
      await deployToDev(admin, objectSchema('com.order', name, '1-0-0', { x: { type: 'string' } }))
    await deployToDev(admin, objectSchema('com.Order', 'x', '1-0-0', { x: { type: 'string' } }))
  }, 60_000)
  afterAll(async () => stop())

  it('lists data structures and their versions by vendor, then name, in code point order', async () => {
    const structures = (await admin.call('GET', '/data-structures/v1')).body as {
      vendor: string
      name: string
    }[]
    const keys = structures.map((s) => `${s.vendor}/${s.name}`)
    expect(keys).toEqual(codePointOrder(keys))
    expect(keys[0]).toBe('com.Order/x')
    const versions = (await admin.call('GET', '/data-structures/v1/schemas/versions?env=DEV'))
      .body as { self: { vendor: string; name: string } }[]
    expect(versions.map((v) => `${v.self.vendor}/${v.self.name}`)).toEqual(keys)
    const iglu = await fetch(`${server.baseUrl}/iglu/${admin.organizationId}/dev/api/schemas`, {
      headers: { authorization: `Bearer ${admin.accessToken}` },
    })
    const uris = ((await iglu.json()) as string[]).map((uri) =>
      uri.replace(/^iglu:/, '').replace(/\/jsonschema\/.*$/, ''),
    )
    expect(uris).toEqual(keys)
  })
})
