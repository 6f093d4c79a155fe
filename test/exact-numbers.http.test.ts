import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { storageModes } from './support/storage-modes.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const LONG_MAX = '9223372036854775807'
const LONG_MIN = '-9223372036854775808'

/** A counter schema whose bounds are Java's long range, as text (JSON.stringify would round them). */
function counterSchemaText(vendor: string): string {
  const schema = objectSchema(vendor, 'counter', '1-0-0', {
    total: { type: 'integer', maximum: 'LONG_MAX', minimum: 'LONG_MIN' },
  })
  return JSON.stringify(schema).replace('"LONG_MAX"', LONG_MAX).replace('"LONG_MIN"', LONG_MIN)
}

describe('large integers in events are checked exactly, as Enrich does with BigDecimal', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-exact-'))
  let floe: TestApp
  let admin: ApiClient
  beforeAll(async () => {
    const at = path.join(dir, 'schemas', 'com.embedded', 'counter', 'jsonschema')
    mkdirSync(at, { recursive: true })
    writeFileSync(path.join(at, '1-0-0'), counterSchemaText('com.embedded'))
    floe = await startTestApp(testConfig({ inspection: { igluDirs: [dir] } }))
    admin = await bootstrapAdmin(floe)
    const validation = await admin.call(
      'POST',
      '/data-structures/v1/validation-requests',
      `{"data":${counterSchemaText('com.registry')}}`,
    )
    expect(validation.body).toMatchObject({ success: true })
    const deployment = await admin.call('POST', '/data-structures/v1/deployment-requests', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.registry',
      name: 'counter',
      format: 'jsonschema',
      version: '1-0-0',
      message: 'long bounds',
    })
    expect(deployment.status).toBe(201)
  })
  afterAll(async () => {
    await floe?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Sends a self-describing counter event whose total is this JSON number text; its app ID tags it. */
  async function sendCounter(vendor: string, total: string, appId: string) {
    const uePr = `{"schema":"iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0","data":{"schema":"iglu:${vendor}/counter/jsonschema/1-0-0","data":{"total":${total}}}}`
    const query = new URLSearchParams({ e: 'ue', p: 'web', tv: 't', aid: appId, ue_pr: uePr })
    expect((await fetch(`${floe.baseUrl}/i?${query}`)).status).toBe(200)
  }

  it('refuses one past the bound where a double cannot tell them apart, from any repository', async () => {
    for (const vendor of ['com.embedded', 'com.registry']) {
      await sendCounter(vendor, LONG_MAX, `${vendor}-max`)
      await sendCounter(vendor, LONG_MIN, `${vendor}-min`)
      await sendCounter(vendor, '9223372036854775808', `${vendor}-over`)
      await sendCounter(vendor, '-9223372036854775809', `${vendor}-under`)
    }
    const good = await requestJson(`${floe.baseUrl}/micro/good`)
    expect(
      (good.body as { event: { app_id: string } }[]).map((e) => e.event.app_id).sort(),
    ).toEqual(['com.embedded-max', 'com.embedded-min', 'com.registry-max', 'com.registry-min'])
    const bad = await requestJson(`${floe.baseUrl}/micro/bad`)
    const messages = JSON.stringify(bad.body)
    expect((bad.body as unknown[]).length).toBe(4)
    expect(messages).toContain(`$.total: must have a maximum value of ${LONG_MAX}`)
    expect(messages).toContain(`$.total: must have a minimum value of ${LONG_MIN}`)
  })
})

describe.each(storageModes)(
  'numbers a double rounds are printed as the tracker wrote them, on $name storage',
  (mode) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-exact-print-'))
    let floe: TestApp
    let dropStorage: () => Promise<void> = async () => undefined
    const LONG_PAST_DOUBLE = '9007199254740993'
    beforeAll(async () => {
      const at = path.join(dir, 'schemas', 'com.embedded', 'counter', 'jsonschema')
      mkdirSync(at, { recursive: true })
      writeFileSync(path.join(at, '1-0-0'), counterSchemaText('com.embedded'))
      const storage = await mode.create()
      dropStorage = storage.drop
      floe = await startTestApp(
        testConfig({
          db: storage.overrides.db,
          inspection: { igluDirs: [dir], storage: storage.overrides.storage },
        }),
      )
      const counter = (total: string) =>
        `{"schema":"iglu:com.embedded/counter/jsonschema/1-0-0","data":{"total":${total}}}`
      const query = new URLSearchParams({
        e: 'ue',
        p: 'web',
        tv: 't',
        aid: 'exact',
        ue_pr: `{"schema":"iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0","data":${counter(LONG_MAX)}}`,
        co: `{"schema":"iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0","data":[${counter(LONG_PAST_DOUBLE)},${counter('7')}]}`,
      })
      expect((await fetch(`${floe.baseUrl}/i?${query}`)).status).toBe(200)
    })
    afterAll(async () => {
      await floe?.close()
      await dropStorage()
      rmSync(dir, { recursive: true, force: true })
    })

    it('answers /micro/good and /local/good with the written digits, not their doubles', async () => {
      for (const route of ['/micro/good', '/local/good']) {
        const text = await (
          await fetch(`${floe.baseUrl}${route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).text()
        expect(text).toContain(
          `"unstruct_event":{"schema":"iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0","data":{"schema":"iglu:com.embedded/counter/jsonschema/1-0-0","data":{"total":${LONG_MAX}}}}`,
        )
        expect(text).toContain(`{"total":${LONG_PAST_DOUBLE}}`)
        expect(text).toContain(`{"total":7}`)
        // JSON.stringify would have printed the doubles: 9223372036854775807 → 9223372036854776000.
        expect(text).not.toContain('9223372036854776000')
        expect(text).not.toContain('9007199254740992')
      }
    })

    it('answers the events API (the flattened JSON) with the written digits', async () => {
      const listed = await fetch(`${floe.baseUrl}/local/events`)
      const queried = await fetch(`${floe.baseUrl}/local/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ filters: [], page: 1, pageSize: 50 }),
      })
      for (const answer of [listed, queried]) {
        const text = await answer.text()
        expect(answer.status, text).toBe(200)
        expect(text).toContain(`"total":${LONG_MAX}`)
        expect(text).toContain(`"total":${LONG_PAST_DOUBLE}`)
        expect(text).not.toContain('9223372036854776000')
      }
    })
  },
)
