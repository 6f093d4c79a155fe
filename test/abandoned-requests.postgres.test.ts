import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { pollUntil } from './support/poll-until.js'
import { objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { postgresBackend, type TestDatabase } from './support/test-databases.js'

// An asynchronous validation request accepted by an instance that then stopped for good (a kill,
// a machine gone): an audit saw it stay "in progress" for ever on the instance still running,
// since only the one that accepted it finished such requests, at its restart. Any instance now
// finishes a request left unfinished for a minute.

describe('a registry request another instance accepted and never finished', () => {
  let database: TestDatabase
  let running: TestApp
  let admin: ApiClient

  beforeAll(async () => {
    database = await postgresBackend.create()
    running = await startTestApp(testConfig({ db: database.config }), {
      registryUpkeepMs: 50,
    })
    admin = await bootstrapAdmin(running)
  })
  afterAll(async () => {
    await running?.close()
    await database?.drop()
  })

  /** What an instance that stopped left behind: accepted `acceptedSecondsAgo` ago, unfinished. */
  async function leftBehind(acceptedSecondsAgo: number): Promise<string> {
    const id = randomUUID()
    const pending = { id, completed: false, success: false, errors: null, warnings: null }
    const work = {
      kind: 'validation',
      body: { data: objectSchema('com.acme', `left${acceptedSecondsAgo}`, '1-0-0', {}) },
    }
    if (database.config.kind !== 'postgres') throw new Error('a PostgreSQL database was expected')
    const client = new pg.Client({ connectionString: database.config.url })
    await client.connect()
    try {
      await client.query(
        `insert into registry_requests (id, organization_id, kind, result, pending_work, created_at)
         values ($1, $2, 'validation', $3, $4, now() - make_interval(secs => $5))`,
        [
          id,
          admin.organizationId,
          JSON.stringify({ ...pending, info: null, message: 'in progress' }),
          JSON.stringify(work),
          acceptedSecondsAgo,
        ],
      )
    } finally {
      await client.end()
    }
    return id
  }

  const poll = (id: string) =>
    admin.call('GET', `/data-structures/v1/validation-requests/${id}`).then((answer) => answer.body)

  it('is finished by the instance still running, once it has waited a minute', async () => {
    const abandoned = await leftBehind(120)
    const recent = await leftBehind(0)
    const finished = await pollUntil(
      () => poll(abandoned),
      (body) => body.completed === true,
      'the abandoned request to be finished',
    )
    expect(finished).toMatchObject({ id: abandoned, completed: true, success: true })
    // One accepted a moment ago may still be in the works elsewhere: it is left to its instance.
    expect(await poll(recent)).toMatchObject({ id: recent, completed: false })
  })
})
