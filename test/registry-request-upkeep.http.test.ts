import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FINISHED_REQUESTS_KEPT_SECONDS } from '../src/registry/request-upkeep.js'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { pollUntil } from './support/poll-until.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Every validation and deployment request keeps its result, to be read back by its id; a team's CI
// sends thousands a day, and they were kept for ever. A finished one is forgotten after a week.

describe('finished registry requests, a week on', () => {
  let server: TestApp
  let admin: ApiClient

  beforeAll(async () => {
    server = await startTestApp(testConfig(), { registryUpkeepMs: 50 })
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => server?.close())

  /** A finished validation request, accepted `secondsAgo` ago. */
  async function finishedRequest(secondsAgo: number): Promise<string> {
    const id = randomUUID()
    const result = { id, completed: true, success: true, errors: null, warnings: null, info: null }
    await sql`insert into registry_requests (id, organization_id, kind, result, created_at)
      values (${id}, ${admin.organizationId}, 'validation', ${JSON.stringify({ ...result, message: 'ok' })}::jsonb,
        now() - make_interval(secs => ${secondsAgo}))`.execute(server.app.store.db)
    return id
  }
  const read = (id: string) => admin.call('GET', `/data-structures/v1/validation-requests/${id}`)

  it('is forgotten (404), and a younger one is still read back', async () => {
    const old = await Promise.all(
      Array.from({ length: 3 }, () => finishedRequest(FINISHED_REQUESTS_KEPT_SECONDS + 3600)),
    )
    const young = await finishedRequest(FINISHED_REQUESTS_KEPT_SECONDS - 3600)
    await pollUntil(
      () => read(old[2]!),
      (answer) => answer.status === 404,
      'the week-old request to be forgotten',
    )
    for (const id of old) expect((await read(id)).status).toBe(404)
    const kept = await read(young)
    expect(kept.status).toBe(200)
    expect(kept.body).toMatchObject({ id: young, completed: true })
  })
})
