import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'

describe("the user's repositories come before Floe's bundled core schemas", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-precedence-'))
  let floe: TestApp
  beforeAll(async () => {
    // The user's own web_page 1-0-0, stricter than Iglu Central's: it also wants a title.
    const at = path.join(dir, 'schemas', SP, 'web_page', 'jsonschema')
    mkdirSync(at, { recursive: true })
    writeFileSync(
      path.join(at, '1-0-0'),
      JSON.stringify({
        $schema:
          'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
        self: { vendor: SP, name: 'web_page', format: 'jsonschema', version: '1-0-0' },
        type: 'object',
        properties: { id: { type: 'string' }, title: { type: 'string' } },
        required: ['id', 'title'],
      }),
    )
    floe = await startTestApp(testConfig({ inspection: { igluDirs: [dir] } }))
  })
  afterAll(async () => {
    await floe?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('resolves a core URI from the --iglu-dir first, saying which repository answered', async () => {
    const own = await requestJson(`${floe.baseUrl}/micro/iglu/${SP}/web_page/jsonschema/1-0-0`)
    expect(own.body.required).toEqual(['id', 'title'])
    expect(own.headers.get('floe-iglu-repository')).toMatch(/^Embedded 1 /)
    const bundled = await requestJson(
      `${floe.baseUrl}/micro/iglu/${SP}/client_session/jsonschema/1-0-2`,
    )
    expect(bundled.headers.get('floe-iglu-repository')).toBe('Iglu Client Embedded')
    // An event is judged by the user's schema: a web_page without a title is bad.
    const co = JSON.stringify({
      schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
      data: [{ schema: `iglu:${SP}/web_page/jsonschema/1-0-0`, data: { id: 'a-page-view' } }],
    })
    await fetch(`${floe.baseUrl}/i?${new URLSearchParams({ e: 'pv', p: 'web', tv: 't', co })}`)
    expect((await requestJson(`${floe.baseUrl}/micro/all`)).body).toEqual({
      total: 1,
      good: 0,
      bad: 1,
    })
  })
})
