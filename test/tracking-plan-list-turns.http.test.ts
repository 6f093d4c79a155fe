import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { columnsOf } from '../src/tracking-plans/scenario-rows.js'
import type { Scenario } from '../src/tracking-plans/scenarios.schemas.js'
import type { TrackingPlanTables } from '../src/tracking-plans/tracking-plan.tables.js'
import { apiClient, type ApiClient } from './support/api-client.js'
import { bodyChunks, loopDuring } from './support/event-loop-watch.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

/** As many specifications as the audit's organization (RELIABILITY.md): ~1.5 kB of JSON each. */
const SPECS = 2500
const CONCURRENT_LISTS = 4

/** A specification as teams write them: a narrowed event, entities, a trigger. */
function scenarioNumber(i: number, dataProductId: string): Scenario {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    version: 0,
    status: 'draft',
    name: `Checkout step ${i}`,
    description: `The ${i}th step of the checkout, tracked when the user leaves the page ${i % 97}.`,
    triggers: [{ description: `When the button ${i} is pressed`, appIds: ['web', 'ios'] }],
    event: {
      source: 'iglu:com.acme/checkout_step/jsonschema/1-0-0',
      schema: {
        type: 'object',
        properties: {
          step: { type: 'integer', minimum: i % 10, maximum: 100 },
          label: { type: 'string', maxLength: 50, enum: [`step-${i}`, `step-${i + 1}`] },
          option: { type: ['string', 'null'], maxLength: 120 },
        },
        required: ['step'],
        additionalProperties: false,
      },
    },
    entities: {
      tracked: [
        { source: 'iglu:com.acme/cart/jsonschema/1-0-0', minCardinality: 1, maxCardinality: 1 },
        { source: 'iglu:com.acme/user/jsonschema/1-0-0', minCardinality: 0 },
      ],
      enriched: [],
    },
    dataProductId,
  }
}

// Lists of thousands of specifications are built, serialized and sent a slice at a time, with
// turns of the event loop between slices: four such lists at once held every other request for
// 0.25–0.5 s (RELIABILITY.md), each list's views and answer made in one turn.
describe('long tracking plan lists at once, on embedded PGlite', () => {
  let server: TestApp
  let client: ApiClient
  let organizationId: string

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    organizationId = startup.organizationId
    client = await apiClient(
      { baseUrl: server.baseUrl },
      organizationId,
      startup.apiKeyId,
      startup.apiKey,
    )
    const products: string[] = []
    for (const name of ['Checkout', 'Search', 'Accounts']) {
      const created = await client.call('POST', '/data-products/v2', { name, domain: 'shop' })
      expect(created.status).toBe(201)
      products.push(created.body.data[0].id)
    }
    // Written straight to the tables, 250 rows a statement: what is measured is the reads.
    const db = server.app.store.db.withTables<TrackingPlanTables>()
    const placement = { contextKey: '', dataStructureHash: null, dataStructureVersion: null }
    for (let start = 0; start < SPECS; start += 250) {
      const scenarios = Array.from({ length: Math.min(250, SPECS - start) }, (_, offset) =>
        scenarioNumber(start + offset, products[(start + offset) % products.length]!),
      )
      const date = (scenario: Scenario) =>
        new Date(Date.UTC(2026, 0, 1) + Number(scenario.id.slice(-12)))
      await db
        .insertInto('tracking_scenarios')
        .values(
          scenarios.map((scenario) => ({
            id: scenario.id,
            organization_id: organizationId,
            ...columnsOf(scenario, placement),
            created_at: date(scenario),
            updated_at: date(scenario),
          })),
        )
        .execute()
      await db
        .insertInto('tracking_scenario_history')
        .values(
          scenarios.map((scenario) => ({
            organization_id: organizationId,
            scenario_id: scenario.id,
            version: 0,
            status: 'draft' as const,
            author: 'test',
            message: `created ${scenario.name}`,
            date: date(scenario),
            snapshot: JSON.stringify(scenario),
          })),
        )
        .execute()
    }
  }, 60_000)
  afterAll(async () => server?.close())

  const list = async (path: string) => {
    const answer = await fetch(
      `${server.baseUrl}/api/msc/v1/organizations/${organizationId}${path}`,
      { headers: { authorization: `Bearer ${client.accessToken}` } },
    )
    // The chunks only: joining and decoding them (this process is the client too) is left until the server
    // has answered, so that the watched loop turns are the server's.
    return {
      status: answer.status,
      type: answer.headers.get('content-type'),
      chunks: await bodyChunks(answer),
    }
  }

  for (const path of ['/event-specs/v1', '/tracking-scenarios/v1', '/data-products/v2'])
    it(`answers ${CONCURRENT_LISTS} lists of ${path} at once without holding the server`, async () => {
      const {
        result: answers,
        longestTurnMs,
        totalMs,
      } = await loopDuring(() =>
        Promise.all(Array.from({ length: CONCURRENT_LISTS }, () => list(path))),
      )
      const result = answers.map(({ chunks, ...answer }) => ({
        ...answer,
        text: Buffer.concat(chunks).toString('utf8'),
      }))
      console.log(
        `${path}: longest turn ${longestTurnMs.toFixed(0)} ms of ${totalMs.toFixed(0)} ms`,
      )
      for (const answer of result) {
        expect(answer.status).toBe(200)
        expect(answer.type).toBe('application/json; charset=utf-8')
        expect(answer.text).toBe(result[0]!.text)
      }
      const body = JSON.parse(result[0]!.text)
      if (path === '/data-products/v2') {
        expect(body.data).toHaveLength(3)
        expect(body.includes.eventSpecs).toHaveLength(SPECS)
      } else {
        expect(body.data.map((spec: { name: string }) => spec.name)).toEqual(
          Array.from({ length: SPECS }, (_, i) => `Checkout step ${i}`),
        )
      }
      expect(longestTurnMs).toBeLessThan(200)
      expect(longestTurnMs).toBeLessThan(totalMs / 3)
    })
})
