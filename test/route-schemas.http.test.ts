import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Route schemas are compiled at first use, not at start-up: every one of them must compile, or a
// request would meet the error that start-up used to.
let server: TestApp
beforeAll(async () => {
  server = await startTestApp(testConfig())
})
afterAll(async () => server?.close())

it('compiles every route schema of the app', async () => {
  const compiled = await server.app.compileRouteSchemas()
  expect(compiled).toBeGreaterThan(100)
})

// The interactive API page is made at its first request (see api-docs.ts): what it serves must be
// the page, its files and this server's API document; other paths under it are this server's 404.
it('serves the API page at /docs, made at its first request, with its files and the document', async () => {
  const page = await fetch(`${server.baseUrl}/docs`)
  expect(page.status).toBe(200)
  expect(page.headers.get('content-type')).toMatch(/^text\/html/)
  expect(await page.text()).toContain('swagger-initializer.js')
  const css = await fetch(`${server.baseUrl}/docs/static/swagger-ui.css`)
  expect(css.status).toBe(200)
  expect(css.headers.get('content-type')).toMatch(/^text\/css/)
  expect((await css.text()).length).toBeGreaterThan(10_000)
  const document = (await (await fetch(`${server.baseUrl}/docs/json`)).json()) as {
    openapi: string
    paths: Record<string, unknown>
  }
  const served = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as unknown
  expect(document).toEqual(served)
  expect(Object.keys(document.paths).length).toBeGreaterThan(20)
  const missing = await fetch(`${server.baseUrl}/docs/no-such-file`)
  expect(missing.status).toBe(404)
  expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' })
})

// Checked against the OpenAPI Initiative's own schema of 3.0 documents.
it('serves an API document that is valid OpenAPI 3.0', async () => {
  const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as Parameters<
    Validator['validate']
  >[0]
  const result = await new Validator().validate(document)
  expect(result.errors ?? []).toEqual([])
  expect(result.valid).toBe(true)
})

// A client generator reads the document: it must be valid OpenAPI 3.0, whatever catch-alls the
// server has (`/micro/*`, the collector's `OPTIONS *` and routes of every method were listed, with
// a path of no leading slash and the QUERY method, which 3.0 has not).
it('serves an API document of operations OpenAPI 3.0 can describe, and describes /health as text', async () => {
  const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
    openapi: string
    paths: Record<
      string,
      Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
    >
  }
  expect(document.openapi).toBe('3.0.3')
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
  const faults = Object.entries(document.paths).flatMap(([path, item]) => [
    ...(path.startsWith('/') && !path.includes('*') ? [] : [`path ${path}`]),
    ...Object.keys(item)
      .filter((key) => !methods.includes(key) && key !== 'parameters')
      .map((key) => `${path}: method ${key}`),
  ])
  expect(faults).toEqual([])
  // Every operation says what it answers: a body's media type, or a status that has none.
  const unsaid = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .flatMap(([method, operation]) => {
        const answers = Object.entries(operation.responses ?? {})
        const bodiless = (status: string) => ['202', '204'].includes(status) || status[0] === '3'
        const undescribed = answers.filter(
          ([status, answer]) => answer.content === undefined && !bodiless(status),
        )
        return answers.length === 0
          ? [`${method} ${path}: no answer`]
          : undescribed.map(([status]) => `${method} ${path} ${status}: no media type`)
      }),
  )
  expect(unsaid).toEqual([])
  // The operations a client calls are still there.
  expect(document.paths['/micro/all']?.get).toBeDefined()
  expect(document.paths['/i']?.get).toBeDefined()
  expect(Object.keys(document.paths['/health']?.get?.responses?.['200']?.content ?? {})).toEqual([
    'text/plain',
  ])
  // A route that reads a body says it may answer 413 and 415; a creation, its conflicts.
  const productPaths = Object.keys(document.paths).filter((path) =>
    /\/data-products\/v2\/?$/.test(path),
  )
  expect(productPaths).toHaveLength(1)
  const creation = document.paths[productPaths[0] ?? '']?.post?.responses ?? {}
  expect(Object.keys(creation)).toEqual(expect.arrayContaining(['201', '409', '413', '415', '422']))
  // MCP is a POST behind the bearer token; its GET and DELETE only say 405.
  const mcp = document.paths['/mcp'] as Record<string, { security?: unknown[] }> | undefined
  expect(Object.keys(mcp ?? {})).toEqual(['post'])
  expect(mcp?.post?.security).toEqual([{ bearer: [] }])
  const variant = Object.entries(document.paths).find(([path]) =>
    path.endsWith('/images/v1/{imageId}/{variant}'),
  )
  expect(Object.keys(variant?.[1].get?.responses?.['200']?.content ?? {})).toEqual(['image/*'])
  const health = await fetch(`${server.baseUrl}/health`)
  expect(health.headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await health.text()).toBe('ok')
})
