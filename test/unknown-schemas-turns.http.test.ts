import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOOKUPS_PER_TURN } from '../src/registry/registry-context.js'
import { requestJson } from './support/api-client.js'
import { countTurns, postTp2 } from './support/event-loop-watch.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The server runs in this process: turns of its event loop are counted here.
describe('an event naming many schemas no one deployed, on embedded PGlite', () => {
  let server: TestApp
  beforeAll(async () => {
    server = await startTestApp(testConfig())
  })
  afterAll(async () => server?.close())

  it('lets other work run between the registry lookups of its entities', async () => {
    const COUNT = 40 * LOOKUPS_PER_TURN
    const contexts = JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data: Array.from({ length: COUNT }, (_, i) => ({
        schema: `iglu:com.nope${i}/x/jsonschema/1-0-0`,
        data: {},
      })),
    })
    const loop = countTurns()
    const answer = await postTp2(server.baseUrl, [
      { e: 'pv', p: 'web', tv: 'js-3.0.0', co: contexts },
    ])
    expect(answer.status).toBe(200)
    // Read after every answered request's events are stored.
    expect((await requestJson(`${server.baseUrl}/micro/all`)).body).toMatchObject({ bad: 1 })
    loop.stop()
    // At most LOOKUPS_PER_TURN queries a turn: the loop turned at least COUNT / LOOKUPS_PER_TURN times.
    expect(loop.turns()).toBeGreaterThanOrEqual(COUNT / LOOKUPS_PER_TURN)
  })
})
