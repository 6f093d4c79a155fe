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
