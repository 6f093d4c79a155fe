import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLog } from './support/log-capture.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 25, item 7.4: tokens or keys in a query string (as an EventSource must send them) never reach the logs.

/** Polls `condition` every 10 ms until it holds; throws after `deadlineMs`. */
async function until(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited ${deadlineMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('request logs', () => {
  let server: TestApp
  const log = captureLog()

  beforeAll(async () => {
    server = await startTestApp(testConfig({ log: { level: 'info' } }), { logStream: log.stream })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('log each request with its URL, credential-like query parameters redacted', async () => {
    const organizationId =
      server.app.startup.kind === 'initial' ? server.app.startup.organizationId : ''
    const paths = [
      `/api/msc/v1/organizations/${organizationId}/credentials/v2/api-keys?access_token=SECRETVALUE&page=2`,
      `/api/msc/v1/organizations/${organizationId}/credentials/v3/token?apiKey=SECRETVALUE`,
      '/micro/all?token=SECRETVALUE',
      '/nowhere?Authorization=Bearer%20SECRETVALUE&password=SECRETVALUE',
    ]
    const statuses = []
    for (const path of paths) statuses.push((await fetch(`${server.baseUrl}${path}`)).status)
    expect(statuses).toEqual([401, 401, 200, 404])
    const completed = () =>
      log
        .text()
        .split('\n')
        .filter((line) => line.includes('"msg":"request completed"')).length
    await until(() => completed() >= paths.length, 'the requests to be logged as completed')

    const urls = log
      .text()
      .split('\n')
      .filter((line) => line.includes('"msg":"incoming request"'))
      .map((line) => (JSON.parse(line) as { req: { url: string } }).req.url)
    expect(urls).toEqual([
      `/api/msc/v1/organizations/${organizationId}/credentials/v2/api-keys?access_token=[REDACTED]&page=2`,
      `/api/msc/v1/organizations/${organizationId}/credentials/v3/token?apiKey=[REDACTED]`,
      '/micro/all?token=[REDACTED]',
      '/nowhere?Authorization=[REDACTED]&password=[REDACTED]',
    ])
    expect(log.text()).not.toContain('SECRETVALUE')
  })
})

describe('the start-up log', () => {
  it('warns of an inspected organization that does not exist', async () => {
    const log = captureLog()
    const unknown = '0b8f6a52-8d0e-4f8e-9a8b-6b2f3f1c2d3e'
    const server = await startTestApp(
      testConfig({ log: { level: 'info' }, inspection: { organizationId: unknown } }),
      { logStream: log.stream },
    )
    try {
      await until(
        () => log.text().includes(`--inspect-org ${unknown}: no such organization`),
        'the warning',
      )
    } finally {
      await server.close()
    }
    const known = await startTestApp(testConfig({ log: { level: 'info' } }), {
      logStream: log.stream,
    })
    await known.close()
    expect(log.text().match(/no such organization/g)).toHaveLength(1)
  })
})
