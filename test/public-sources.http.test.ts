import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Event specifications may name schemas the organization never deployed: the two built-in events
// snowplow-cli counts as deployed (page_view, page_ping 1-0-0), and the schemas event inspection
// resolves outside the registry (the bundled core schemas, the configured Iglu repositories).
const SNOWPLOW = 'iglu:com.snowplowanalytics.snowplow'
const LINK_CLICK = `${SNOWPLOW}/link_click/jsonschema/1-0-1`
const WEB_PAGE = `${SNOWPLOW}/web_page/jsonschema/1-0-0`
const PAGE_VIEW = `${SNOWPLOW}/page_view/jsonschema/1-0-0`
const URI_REDIRECT = `${SNOWPLOW}/uri_redirect/jsonschema/1-0-0`
const FROM_DIRECTORY = 'iglu:com.acme.public/banner/jsonschema/1-0-0'

describe('public schemas as the sources of event specifications', () => {
  let server: TestApp
  let admin: ApiClient
  let igluDir: string

  beforeAll(async () => {
    igluDir = mkdtempSync(path.join(tmpdir(), 'floe-public-'))
    const place = path.join(igluDir, 'schemas', 'com.acme.public', 'banner', 'jsonschema')
    mkdirSync(place, { recursive: true })
    const banner = objectSchema('com.acme.public', 'banner', '1-0-0', {
      slot: { type: 'string', maxLength: 20 },
    })
    writeFileSync(path.join(place, '1-0-0'), JSON.stringify(banner))
    server = await startTestApp(testConfig({ inspection: { igluDirs: [igluDir] } }))
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => {
    await server?.close()
    rmSync(igluDir, { recursive: true, force: true })
  })

  const entity = (source: string) => ({ source, minCardinality: null, maxCardinality: null })
  const specBody = (name: string, event: string, entities: string[], status = 'draft') => ({
    name,
    status,
    event: { source: event },
    entities: { tracked: entities.map(entity), enriched: [] },
  })
  const compatibility = (source: string, schema: object, tracked: object[] = []) =>
    admin.call('POST', '/event-specs/v1/compatibility', {
      spec: {
        event: { source, schema },
        entities: { tracked },
        id: '312d3987-4874-498d-af6c-162ce0da39d7',
        name: 'cli-compat-check',
        status: 'draft',
        version: '0',
      },
    })

  it('takes built-in events, core schemas and configured repositories, as in production', async () => {
    for (const [name, event, entities] of [
      ['Link clicked', LINK_CLICK, [WEB_PAGE]],
      ['Page viewed', PAGE_VIEW, [WEB_PAGE]],
      ['Banner seen', FROM_DIRECTORY, []],
    ] as const) {
      const created = await admin.call('POST', '/event-specs/v1', {
        spec: specBody(name, event, [...entities], 'published'),
        message: '',
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body.data[0]).toMatchObject({ name, status: 'published' })
    }
  })

  it('checks a specification against the public schema it names', async () => {
    const narrower = {
      type: 'object',
      properties: { targetUrl: { type: 'string', minLength: 1, maxLength: 100 } },
      required: ['targetUrl'],
      additionalProperties: false,
    }
    // An empty targetUrl, which link_click refuses (minLength 1), makes the specification wider.
    const loose = { ...narrower, properties: { targetUrl: { type: 'string', maxLength: 100 } } }
    const wider = await compatibility(LINK_CLICK, loose)
    expect(wider.status).toBe(200)
    expect(wider.body.status).toBe('incompatible')
    const pageUuid = {
      source: WEB_PAGE,
      schema: {
        type: 'object',
        properties: { id: { type: 'string', enum: ['5a2b1c0e-7d3f-4a8e-9b6c-1d2e3f4a5b6c'] } },
        required: ['id'],
        additionalProperties: false,
      },
    }
    const both = await compatibility(LINK_CLICK, narrower, [pageUuid])
    expect(both.body).toMatchObject({
      status: 'compatible',
      sources: [
        { source: LINK_CLICK, status: 'compatible' },
        { source: WEB_PAGE, status: 'compatible' },
      ],
    })
    // A built-in event carries no self-describing data: a property is more than it can hold.
    const onPageView = await compatibility(PAGE_VIEW, {
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
    })
    expect(onPageView.body.status).toBe('incompatible')
  })

  it('refuses a source known nowhere, and lets the registry alone answer for its own structures', async () => {
    const ghost = await admin.call('POST', '/event-specs/v1', {
      spec: specBody('Ghost', 'iglu:com.acme/ghost/jsonschema/1-0-0', []),
      message: '',
    })
    expect(ghost.status).toBe(422)
    expect(JSON.stringify(ghost.body)).toContain('nor one known outside it')
    // The organization's own uri_redirect (an integer uri) takes precedence over the core schema.
    await deployToDev(
      admin,
      objectSchema('com.snowplowanalytics.snowplow', 'uri_redirect', '1-0-0', {
        uri: { type: 'integer', maximum: 10 },
      }),
    )
    const asText = { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] }
    expect((await compatibility(URI_REDIRECT, asText)).body.status).toBe('incompatible')
    // A version the organization's structure lacks is not looked for elsewhere.
    const otherVersion = await compatibility(`${SNOWPLOW}/uri_redirect/jsonschema/1-0-1`, asText)
    expect(otherVersion.status).toBe(422)
  })
})
