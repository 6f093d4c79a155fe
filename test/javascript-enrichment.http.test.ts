import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 32, items 1 and 7: JavaScript enrichments from an enrichments directory, as Micro's own
// tests have them (a script that drops every event of app_id drop-all, one that adds an entity,
// one that throws), and the budget that stops an endless loop.

const SP = 'com.snowplowanalytics.snowplow'
const JS_CONTEXT = 'iglu:com.acme/js_context/jsonschema/1-0-0'

const DROP_ALL = `function process(event) {
  if (event.getApp_id() === 'drop-all') event.drop()
  return []
}`
const ADD_CONTEXT = `function process(event, params, headers) {
  const agent = headers.filter(function (h) { return /^user-agent:/i.test(h) })[0] || null
  return [{ schema: '${JS_CONTEXT}',
            data: { appId: event.getApp_id(), team: params.team, agent: agent } }]
}`
const THROWS = `function process(event) {
  if (event.getApp_id() === 'throw-me') throw new Error('no basket')
  if (event.getApp_id() === 'bad-entity') return [{ schema: '${JS_CONTEXT}', data: { appId: 42 } }]
  if (event.getApp_id() === 'loop') while (true) {}
  if (event.getApp_id() === 'replace')
    event.setContexts(JSON.stringify({ schema: 'iglu:${SP}/contexts/jsonschema/1-0-0',
      data: [{ schema: '${JS_CONTEXT}', data: { appId: 'kept' } }, { schema: '${JS_CONTEXT}', data: { appId: 7 } }] }))
  return null
}`

describe('JavaScript enrichments', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-js-enrichment-'))
  let floe: TestApp

  beforeAll(async () => {
    const enrichments = path.join(dir, 'enrichments')
    mkdirSync(enrichments)
    writeFileSync(path.join(enrichments, 'a-drop-all.js'), DROP_ALL)
    writeFileSync(
      path.join(enrichments, 'b-add-context.json'),
      JSON.stringify({
        schema: `iglu:${SP}/javascript_script_config/jsonschema/1-0-1`,
        data: {
          vendor: SP,
          name: 'javascript_script_config',
          enabled: true,
          parameters: {
            script: Buffer.from(ADD_CONTEXT).toString('base64'),
            config: { team: 'checkout' },
          },
        },
      }),
    )
    writeFileSync(path.join(enrichments, 'c-throws.js'), THROWS)
    const schemas = path.join(dir, 'iglu', 'schemas', 'com.acme', 'js_context', 'jsonschema')
    mkdirSync(schemas, { recursive: true })
    writeFileSync(
      path.join(schemas, '1-0-0'),
      JSON.stringify({
        $schema:
          'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
        self: { vendor: 'com.acme', name: 'js_context', format: 'jsonschema', version: '1-0-0' },
        type: 'object',
        properties: {
          appId: { type: 'string' },
          team: { type: 'string' },
          agent: { type: ['string', 'null'] },
        },
        required: ['appId'],
      }),
    )
    floe = await startTestApp(
      testConfig({
        inspection: { enrichmentsDir: enrichments, igluDirs: [path.join(dir, 'iglu')] },
      }),
    )
  })
  afterAll(async () => {
    await floe?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const send = async (appId: string) => {
    const answer = await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=js-3&aid=${appId}`, {
      headers: { 'user-agent': 'enrichment-test/1' },
    })
    expect(answer.status).toBe(200)
  }
  const counts = async () => (await requestJson(`${floe.baseUrl}/micro/all`)).body

  it('drops every event of app_id drop-all: neither good nor bad', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('drop-all')
    await send('shop')
    expect(await counts()).toEqual({ total: 1, good: 1, bad: 0 })
    const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { app_id: string }
    }[]
    expect(good.map((e) => e.event.app_id)).toEqual(['shop'])
  })

  it("adds the script's entity, made from the event, its configuration and the request's headers", async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('shop')
    const [good] = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { derived_contexts: { data: { schema: string; data: unknown }[] } }
    }[]
    expect(good?.event.derived_contexts.data).toContainEqual({
      schema: JS_CONTEXT,
      data: { appId: 'shop', team: 'checkout', agent: 'User-Agent: enrichment-test/1' },
    })
  })

  it('makes a throw an enrichment failure with the message, and an invalid entity a schema violation', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('throw-me')
    await send('bad-entity')
    expect(await counts()).toEqual({ total: 2, good: 0, bad: 2 })
    const bad = (await requestJson(`${floe.baseUrl}/micro/bad`)).body as {
      errors: string[]
    }[]
    const rows = bad.map((b) => JSON.parse(b.errors[1] ?? '{}') as { schema: string; data: any })
    const failure = rows.find((r) => r.schema.includes('enrichment_failures'))
    expect(failure?.data.failure.messages).toEqual([
      {
        enrichment: {
          schemaKey: `iglu:${SP}/javascript_script_config/jsonschema/1-0-0`,
          identifier: 'Javascript enrichment',
        },
        message: {
          error:
            'Error during execution of JavaScript function: [Error: no basket in <eval> at line number 2 at column number 56]',
        },
      },
    ])
    const violation = rows.find((r) => r.schema.includes('schema_violations'))
    expect(JSON.stringify(violation?.data.failure.messages)).toContain(JS_CONTEXT)
  })

  it('validates again the entities a script put in place: an invalid one is a schema violation', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('replace')
    expect(await counts()).toEqual({ total: 1, good: 0, bad: 1 })
    const [bad] = (await requestJson(`${floe.baseUrl}/micro/bad`)).body as { errors: string[] }[]
    const row = JSON.parse(bad?.errors[1] ?? '{}') as { schema: string; data: any }
    expect(row.schema).toContain('schema_violations')
    expect(JSON.stringify(row.data.failure.messages)).toContain(JS_CONTEXT)
    // The incomplete event keeps the valid entity the script set, and drops the invalid one.
    const events = (
      await requestJson(`${floe.baseUrl}/micro/events`, {
        method: 'POST',
        body: { filters: [], validEvents: false, page: 1, pageSize: 10 },
      })
    ).body as { events: Record<string, unknown>[] }
    // (The column also holds the entity the second script derived.)
    const entities = events.events[0]?.contexts_com_acme_js_context_1 as { appId: unknown }[]
    expect(entities).toContainEqual({ appId: 'kept', _schema_version: JS_CONTEXT })
    expect(entities.map((e) => e.appId)).toEqual(['kept', 'replace'])
  })

  it('stops an endless loop at its budget: the event fails, the collector keeps answering', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const looping = send('loop')
    const health = await fetch(`${floe.baseUrl}/health`)
    expect(health.status).toBe(200)
    await looping
    const bad = (await requestJson(`${floe.baseUrl}/micro/bad`)).body as { errors: string[] }[]
    expect(bad[0]?.errors[1]).toContain('the script ran longer than its budget of 100 ms')
  })
})
