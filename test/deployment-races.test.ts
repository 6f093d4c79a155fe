import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkCompatibility } from '../src/compatibility/check-compatibility.js'
import type { CompatibilityChecker } from '../src/compatibility/index.js'
import { createAjv } from '../src/iglu/ajv-factory.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { deployWithChange } from '../src/registry/checked-deployment.js'
import { createRegistryStore } from '../src/registry/registry.store.js'
import type { RegistryTables } from '../src/registry/registry.table.js'
import type { ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { objectSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

const ajv = createAjv()

/**
 * The compatibility engine, run in process, which the test can hold in the middle of a check:
 * what another request does meanwhile is what a slow check (in a worker process) lets it do.
 */
function heldChecker() {
  let hold: Promise<void> | null = null
  let release = () => {}
  let entered = () => {}
  let checking = new Promise<void>((resolve) => (entered = resolve))
  const checker: CompatibilityChecker = {
    async check(candidate, reference) {
      entered()
      if (hold !== null) await hold
      return checkCompatibility(candidate, reference, { ajv, budget: { maxMillis: 60_000 } })
    },
  }
  return {
    checker,
    /** Holds the next checks until `release()`; `checking` settles when one is held. */
    holdNext() {
      hold = new Promise<void>((resolve) => (release = resolve))
      checking = new Promise<void>((resolve) => (entered = resolve))
    },
    get checking() {
      return checking
    },
    release() {
      hold = null
      release()
    },
  }
}

// A deployment's change is measured before the structure's lock is taken (the check may take
// seconds in a worker process). A DEV patch made meanwhile used to reach PROD under the verdict of
// the content it replaced: a breaking change in PROD as an addition, for ever (an audit found it
// on PostgreSQL, 4 times in 12).
describe.each(backends)('deployments checked while others deploy, on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
  })
  afterAll(async () => stop())

  const move = (name: string, version: string, source: string, target: string) => ({
    source,
    target,
    vendor: 'com.acme.race',
    name,
    format: 'jsonschema',
    version,
  })
  const validate = async (schema: object) =>
    expect(
      (await admin.call('POST', '/data-structures/v1/validation-requests', { data: schema })).body
        .success,
    ).toBe(true)
  const deploy = async (body: object, query = '') =>
    admin.call('POST', `/data-structures/v1/deployment-requests${query}`, body)

  const deployHeld = (checker: CompatibilityChecker, request: ReturnType<typeof move>) => {
    const db = server.app.store.db.withTables<RegistryTables>()
    return deployWithChange(
      { db, store: createRegistryStore(db), compatibility: checker, now: () => new Date() },
      admin.organizationId,
      request,
      { patch: false, initiator: { apiKeyId: 'test', isAdmin: true } },
    )
  }

  it('checks a promotion again when DEV was patched during its check, and refuses the breaking patch', async () => {
    const term = (type: string) => ({ term: { type } })
    await validate(objectSchema('com.acme.race', 'search', '1-0-0', term('string')))
    expect((await deploy(move('search', '1-0-0', 'VALIDATED', 'DEV'))).status).toBe(201)
    expect((await deploy(move('search', '1-0-0', 'DEV', 'PROD'))).status).toBe(201)
    // 1-0-1 adds a property: an addition, as its number says.
    const addition = { ...term('string'), extra: { type: 'string' } }
    await validate(objectSchema('com.acme.race', 'search', '1-0-1', addition))
    expect((await deploy(move('search', '1-0-1', 'VALIDATED', 'DEV'))).status).toBe(201)
    // Then 1-0-1 is validated again as a breaking change.
    await validate(objectSchema('com.acme.race', 'search', '1-0-1', term('integer')))

    const held = heldChecker()
    held.holdNext()
    const promotion = deployHeld(held.checker, move('search', '1-0-1', 'DEV', 'PROD'))
    const outcome = promotion.then(
      () => 'deployed',
      (error: unknown) => error,
    )
    await held.checking
    // While the promotion's check runs, DEV is patched with the breaking change.
    const patch = await deploy(move('search', '1-0-1', 'VALIDATED', 'DEV'), '?patch=true')
    expect(patch.status).toBe(201)
    held.release()

    expect(await outcome).toMatchObject({ code: 'MISVERSIONED_CHANGE' })
    const hash = dataStructureHash(admin.organizationId, 'com.acme.race', 'search', 'jsonschema')
    const prod = await admin.call('GET', `/data-structures/v1/${hash}/versions/1-0-1?env=PROD`)
    expect(prod.status).toBe(404)
  })

  it('deploys the candidate it checked, with the change measured on it, when another was validated meanwhile', async () => {
    const props = (extra: Record<string, unknown>) => ({ term: { type: 'string' }, ...extra })
    await validate(objectSchema('com.acme.race', 'lookup', '1-0-0', props({})))
    expect((await deploy(move('lookup', '1-0-0', 'VALIDATED', 'DEV'))).status).toBe(201)
    const checked = objectSchema(
      'com.acme.race',
      'lookup',
      '1-0-1',
      props({ a: { type: 'string' } }),
    )
    await validate(checked)

    const held = heldChecker()
    held.holdNext()
    const deployment = deployHeld(held.checker, move('lookup', '1-0-1', 'VALIDATED', 'DEV'))
    await held.checking
    // Another text of 1-0-1, a breaking one, is validated while the first is checked.
    await validate(objectSchema('com.acme.race', 'lookup', '1-0-1', { term: { type: 'integer' } }))
    held.release()

    const { outcome, change } = await deployment
    expect(outcome.kind).toBe('deployed')
    expect(change).toMatchObject({ changeType: 'minor', misversioned: false })
    const hash = dataStructureHash(admin.organizationId, 'com.acme.race', 'lookup', 'jsonschema')
    const dev = await admin.call('GET', `/data-structures/v1/${hash}/versions/1-0-1?env=DEV`)
    expect(dev.body).toEqual(checked)
  })

  it('measures the change again when the version below was patched during the check', async () => {
    await validate(objectSchema('com.acme.race', 'cart', '1-0-0', { id: { type: 'string' } }))
    expect((await deploy(move('cart', '1-0-0', 'VALIDATED', 'DEV'))).status).toBe(201)
    // 1-0-1 narrows `id` to 10 characters: against 1-0-0 as deployed, a breaking change.
    await validate(
      objectSchema('com.acme.race', 'cart', '1-0-1', { id: { type: 'string', maxLength: 10 } }),
    )

    const held = heldChecker()
    held.holdNext()
    const deployment = deployHeld(held.checker, move('cart', '1-0-1', 'VALIDATED', 'DEV'))
    await held.checking
    // Meanwhile 1-0-0 is patched to the same narrowing: 1-0-1 then changes nothing.
    await validate(
      objectSchema('com.acme.race', 'cart', '1-0-0', { id: { type: 'string', maxLength: 10 } }),
    )
    expect((await deploy(move('cart', '1-0-0', 'VALIDATED', 'DEV'), '?patch=true')).status).toBe(
      201,
    )
    held.release()

    const { outcome, change } = await deployment
    expect(outcome.kind).toBe('deployed')
    // Measured against the patched 1-0-0, as one after the other would have: no breaking change.
    expect(change?.misversioned).toBe(false)
    expect(change?.changeType).toBe('no-change')
  })
})
