import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { otherOrganizationAdmin, type ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'

// snowplow-cli publishes the ids written in its files, so two organizations of one server that
// publish the same tracking plan ask for the same ids. Each organization has its own: neither is
// refused, and neither sees, changes or deletes the other's.

describe.each(backends)('ids a client chooses, in two organizations, on $name', (backend) => {
  let first: ApiClient
  let second: ApiClient
  let stop: () => Promise<void> = async () => undefined
  const ids = { product: randomUUID(), application: randomUUID(), scenario: randomUUID() }

  /** The same plan, published by `client` under the same ids, named for it. */
  async function publish(client: ApiClient, label: string): Promise<void> {
    const application = await client.call('POST', '/source-apps/v1', {
      id: ids.application,
      name: `Web of ${label}`,
    })
    expect(application.status).toBe(201)
    const product = await client.call('POST', '/data-products/v2', {
      id: ids.product,
      name: `Checkout of ${label}`,
      sourceApplications: [ids.application],
    })
    expect(product.status).toBe(201)
    // Event specifications take the id snowplow-cli gives (the scenarios API assigns its own).
    const specification = await client.call('POST', '/event-specs/v1', {
      spec: {
        id: ids.scenario,
        name: `Purchase of ${label}`,
        dataProductId: ids.product,
        sourceApplications: [ids.application],
      },
      message: `created by ${label}`,
    })
    expect(specification.status).toBe(201)
  }

  beforeAll(async () => {
    const started = await startAdminApp(backend)
    stop = started.stop
    first = started.admin
    second = await otherOrganizationAdmin(started.server)
  })
  afterAll(async () => stop())

  it('lets both organizations create them, each reading its own', async () => {
    await publish(first, 'first')
    await publish(second, 'second')
    for (const [client, label] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      const product = await client.call('GET', `/data-products/v2/${ids.product}`)
      expect(product.body.data[0]).toMatchObject({
        name: `Checkout of ${label}`,
        sourceApplications: [ids.application],
      })
      const application = await client.call('GET', `/source-apps/v1/${ids.application}`)
      expect(application.body.data[0]).toMatchObject({ name: `Web of ${label}` })
      const scenario = await client.call(
        'GET',
        `/tracking-scenarios/v1/${ids.scenario}?withHistory=true`,
      )
      expect(scenario.body.data[0]).toMatchObject({
        name: `Purchase of ${label}`,
        dataProductId: ids.product,
      })
      // Its history is its own: one record, its own message.
      expect(scenario.body.includes.map((record: { message: string }) => record.message)).toEqual([
        `created by ${label}`,
      ])
      const listed = await client.call('GET', '/tracking-scenarios/v1?withLatestHistory=true')
      expect(listed.body.data.map((s: { name: string }) => s.name)).toEqual([
        `Purchase of ${label}`,
      ])
    }
  })

  it("changes and deletes one organization's records only", async () => {
    const edited = await second.call('PUT', `/tracking-scenarios/v1/${ids.scenario}`, {
      scenario: { name: 'Purchase, edited', dataProductId: ids.product },
      message: 'edited by second',
    })
    expect(edited.status).toBe(200)
    const firstScenario = await first.call(
      'GET',
      `/tracking-scenarios/v1/${ids.scenario}?withHistory=true`,
    )
    expect(firstScenario.body.data[0]).toMatchObject({ name: 'Purchase of first', version: 0 })
    expect(firstScenario.body.includes).toHaveLength(1)

    // The second organization's data product goes: its scenario loses the link, the first's keeps it.
    expect((await second.call('DELETE', `/data-products/v2/${ids.product}`)).status).toBe(204)
    expect((await second.call('GET', `/data-products/v2/${ids.product}`)).status).toBe(404)
    expect((await first.call('GET', `/data-products/v2/${ids.product}`)).status).toBe(200)
    expect(
      (await second.call('GET', `/tracking-scenarios/v1/${ids.scenario}`)).body.data[0],
    ).not.toHaveProperty('dataProductId', ids.product)
    expect(
      (await first.call('GET', `/tracking-scenarios/v1/${ids.scenario}`)).body.data[0],
    ).toMatchObject({ dataProductId: ids.product })

    expect((await second.call('DELETE', `/tracking-scenarios/v1/${ids.scenario}`)).status).toBe(200)
    expect((await second.call('GET', `/tracking-scenarios/v1/${ids.scenario}`)).status).toBe(404)
    expect((await second.call('DELETE', `/source-apps/v1/${ids.application}`)).status).toBe(204)
    expect((await first.call('GET', `/tracking-scenarios/v1/${ids.scenario}`)).status).toBe(200)
    expect((await first.call('GET', `/source-apps/v1/${ids.application}`)).status).toBe(200)
    // A second creation under the same id in the same organization is still refused.
    expect(
      (await first.call('POST', '/data-products/v2', { id: ids.product, name: 'Again' })).status,
    ).toBe(409)
  })
})
