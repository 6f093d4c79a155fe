import { isDeepStrictEqual } from 'node:util'
import type { ApiClient, JsonResponse } from './api-client.js'
import { pollUntil } from './poll-until.js'
import { objectSchema } from './registry-builders.js'

/** How long a restarted server may take to finish the accepted requests a kill interrupted. */
const REQUEST_COMPLETION_MS = 30_000

/** Writes the server answered with a 2xx, and so promised to keep: what each one must read back as. */
export interface AcknowledgedWrites {
  readonly deployments: { hash: string; version: string; schema: object; message: string }[]
  readonly scenarioEdits: { id: string; version: number; description: string; message: string }[]
  readonly apiKeys: { id: string; secret: string; description: string }[]
  readonly dataProducts: { id: string; name: string }[]
  /** Asynchronous validation requests, answered 202: the client polls them by id. */
  readonly acceptedRequests: { id: string }[]
}

export const noAcknowledgedWrites = (): AcknowledgedWrites => ({
  deployments: [],
  scenarioEdits: [],
  apiKeys: [],
  dataProducts: [],
  acceptedRequests: [],
})

export const acknowledgedCount = (writes: AcknowledgedWrites) =>
  writes.deployments.length +
  writes.scenarioEdits.length +
  writes.apiKeys.length +
  writes.dataProducts.length +
  writes.acceptedRequests.length

/**
 * A burst of writes against a server that is about to die: every writer loops until the server is
 * killed, which happens from inside the acknowledgement that reaches the target, while the other
 * writers still wait for their answers. Answers that arrive after the kill still count: the server sent them.
 */
export class WriteBurst {
  private inFlight = 0
  private acknowledged = 0
  /** Requests still unanswered when the kill was sent, and how many had been acknowledged then. */
  killedAt: { inFlight: number; acknowledged: number } | null = null
  /** How many writes of each kind were acknowledged before this burst. */
  private readonly before = new Map<string, number>()
  /** Answers that were neither a success nor a connection lost with the server: each stopped its writer. */
  readonly refusals: string[] = []

  constructor(
    private readonly client: ApiClient,
    private readonly writes: AcknowledgedWrites,
    private readonly options: {
      readonly label: string
      readonly writersPerKind: number
      readonly killAfter: number
      readonly kill: () => void
    },
  ) {
    for (const [kind, list] of Object.entries(writes))
      this.before.set(kind, (list as readonly unknown[]).length)
  }

  /** Runs every writer until the kill; resolves when all of them have stopped. */
  async run(): Promise<void> {
    const writers: Promise<void>[] = []
    for (let w = 0; w < this.options.writersPerKind; w++) {
      const name = `${this.options.label}_w${w}`
      writers.push(
        this.deployVersions(name),
        this.editScenario(name),
        this.createApiKeys(name),
        this.createDataProducts(name),
        this.validateLater(name),
      )
    }
    await Promise.all(writers)
  }

  private get alive(): boolean {
    return this.killedAt === null
  }

  /** One request; null when the connection died with the server, or when it was refused (noted in `refusals`). */
  private async send(
    method: string,
    path: string,
    body: unknown,
    success: number,
  ): Promise<JsonResponse | null> {
    this.inFlight++
    try {
      const response = await this.client.call(method, path, body)
      if (response.status === success) return response
      this.refusals.push(
        `${method} ${path}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`,
      )
      return null
    } catch {
      return null
    } finally {
      this.inFlight--
    }
  }

  /**
   * Counts one acknowledged write; the kill comes once `killAfter` are acknowledged and every kind
   * of write has at least one (a deployment takes two requests and the worker pool's validation,
   * so on a fast database the other kinds alone could reach the count first).
   */
  private acknowledge(record: () => void): void {
    record()
    this.acknowledged++
    const everyKind = Object.values(this.writes).every(
      (list: readonly unknown[]) => list.length > 0,
    )
    if (this.alive && this.acknowledged >= this.options.killAfter && everyKind) {
      this.killedAt = { inFlight: this.inFlight, acknowledged: this.acknowledged }
      this.options.kill()
    }
  }

  private async deployVersions(name: string): Promise<void> {
    for (let n = 0; this.alive; n++) {
      const schema = objectSchema('com.acme.crash', name, `1-0-${n}`, {
        step: { type: 'integer', minimum: 0, maximum: n + 1 },
      })
      const validated = await this.send(
        'POST',
        '/data-structures/v1/validation-requests',
        { data: schema },
        201,
      )
      if (validated?.body.success !== true) return
      const message = `${name} 1-0-${n}`
      const deployed = await this.send(
        'POST',
        '/data-structures/v1/deployment-requests',
        {
          source: 'VALIDATED',
          target: 'DEV',
          vendor: 'com.acme.crash',
          name,
          format: 'jsonschema',
          version: `1-0-${n}`,
          message,
        },
        201,
      )
      if (deployed?.body.success !== true) return
      this.acknowledge(() =>
        this.writes.deployments.push({
          hash: deployed.body.dataStructureHash,
          version: `1-0-${n}`,
          schema,
          message,
        }),
      )
    }
  }

  private async editScenario(name: string): Promise<void> {
    const created = await this.send(
      'POST',
      '/tracking-scenarios/v1',
      { scenario: { name, description: 'created' }, message: 'created' },
      201,
    )
    if (created === null) return
    const id: string = created.body.data[0].id
    this.acknowledge(() =>
      this.writes.scenarioEdits.push({
        id,
        version: created.body.data[0].version,
        description: 'created',
        message: 'created',
      }),
    )
    for (let k = 1; this.alive; k++) {
      const description = `edit ${k}`
      const edited = await this.send(
        'PUT',
        `/tracking-scenarios/v1/${id}`,
        { scenario: { name, description }, message: description },
        200,
      )
      if (edited === null) return
      this.acknowledge(() =>
        this.writes.scenarioEdits.push({
          id,
          version: edited.body.data[0].version,
          description,
          message: description,
        }),
      )
    }
  }

  private async createApiKeys(name: string): Promise<void> {
    for (let k = 0; this.alive; k++) {
      const description = `${name} key ${k}`
      const created = await this.send('POST', '/credentials/v2/api-keys', { description }, 201)
      if (created === null) return
      this.acknowledge(() =>
        this.writes.apiKeys.push({ id: created.body.id, secret: created.body.key, description }),
      )
    }
  }

  private async createDataProducts(name: string): Promise<void> {
    for (let k = 0; this.alive; k++) {
      const productName = `${name} product ${k}`
      const created = await this.send('POST', '/data-products/v2', { name: productName }, 201)
      if (created === null) return
      this.acknowledge(() =>
        this.writes.dataProducts.push({ id: created.body.data[0].id, name: productName }),
      )
    }
  }

  private async validateLater(name: string): Promise<void> {
    for (let n = 0; this.alive; n++) {
      const schema = objectSchema('com.acme.later', name, `1-0-${n}`, { step: { type: 'integer' } })
      const accepted = await this.send(
        'POST',
        '/data-structures/v1/validation-requests?async=true',
        { data: schema },
        202,
      )
      if (accepted === null) return
      this.acknowledge(() => this.writes.acceptedRequests.push({ id: accepted.body.id }))
    }
  }
}

/**
 * Reads every acknowledged write back through the API of a restarted server; the problems found,
 * one line each. Scenarios are edited one request at a time, so at most one unacknowledged edit
 * may follow the last acknowledged one.
 */
export async function missingOrDamaged(
  client: ApiClient,
  writes: AcknowledgedWrites,
  exchangeToken: (id: string, secret: string) => Promise<number>,
): Promise<string[]> {
  const problems: string[] = []
  for (const deployment of writes.deployments) {
    const stored = await client.call(
      'GET',
      `/data-structures/v1/${deployment.hash}/versions/${deployment.version}?env=DEV`,
    )
    if (stored.status !== 200 || !isDeepStrictEqual(stored.body, deployment.schema))
      problems.push(
        `deployment ${deployment.message}: ${stored.status} ${JSON.stringify(stored.body).slice(0, 120)}`,
      )
    const history = await client.call(
      'GET',
      `/data-structures/v1/${deployment.hash}/deployments?env=DEV&version=${deployment.version}`,
    )
    const entries = Array.isArray(history.body) ? (history.body as { message: string }[]) : []
    if (entries.filter((entry) => entry.message === deployment.message).length !== 1)
      problems.push(
        `deployment ${deployment.message}: history ${JSON.stringify(history.body).slice(0, 200)}`,
      )
  }

  const latestEdits = new Map<string, AcknowledgedWrites['scenarioEdits'][number]>()
  for (const edit of writes.scenarioEdits)
    if ((latestEdits.get(edit.id)?.version ?? -1) < edit.version) latestEdits.set(edit.id, edit)
  for (const [id, latest] of latestEdits) {
    const stored = await client.call('GET', `/tracking-scenarios/v1/${id}?withHistory=true`)
    const current = stored.body?.data?.[0] as { version: number; description: string } | undefined
    const history = new Map(
      ((stored.body?.includes ?? []) as { version: number; message: string }[]).map((record) => [
        record.version,
        record.message,
      ]),
    )
    if (current === undefined) {
      problems.push(`scenario ${id}: ${stored.status}`)
      continue
    }
    if (current.version !== latest.version && current.version !== latest.version + 1)
      problems.push(
        `scenario ${id}: at version ${current.version}, last acknowledged ${latest.version}`,
      )
    if (current.version === latest.version && current.description !== latest.description)
      problems.push(
        `scenario ${id}: description ${current.description}, acknowledged ${latest.description}`,
      )
    for (const edit of writes.scenarioEdits.filter((e) => e.id === id)) {
      if (history.get(edit.version) !== edit.message)
        problems.push(
          `scenario ${id}: version ${edit.version} has ${history.get(edit.version)} in its history, acknowledged ${edit.message}`,
        )
    }
  }

  const keys = await client.call('GET', '/credentials/v2/api-keys')
  const listed = new Map(
    ((Array.isArray(keys.body) ? keys.body : []) as { id: string; description: string }[]).map(
      (key) => [key.id, key.description],
    ),
  )
  for (const key of writes.apiKeys) {
    if (listed.get(key.id) !== key.description)
      problems.push(`API key ${key.id}: listed as ${listed.get(key.id)}`)
    const status = await exchangeToken(key.id, key.secret)
    if (status !== 200) problems.push(`API key ${key.id}: token exchange answered ${status}`)
  }

  for (const product of writes.dataProducts) {
    const stored = await client.call('GET', `/data-products/v2/${product.id}`)
    if (stored.body?.data?.[0]?.name !== product.name)
      problems.push(
        `data product ${product.id}: ${stored.status} ${JSON.stringify(stored.body).slice(0, 120)}`,
      )
  }

  // A restarted server finishes the requests a kill interrupted in the background, after it answers
  // its first request: a client polls until each one is complete, as it would after a 202.
  for (const request of writes.acceptedRequests) {
    const polled = await pollUntil(
      () => client.call('GET', `/data-structures/v1/validation-requests/${request.id}`),
      (answer) => answer.status !== 200 || answer.body.completed === true,
      `validation request ${request.id} to complete`,
      REQUEST_COMPLETION_MS,
    ).catch(() => client.call('GET', `/data-structures/v1/validation-requests/${request.id}`))
    if (polled.status !== 200 || polled.body.completed !== true)
      problems.push(
        `validation request ${request.id}: ${polled.status} ${JSON.stringify(polled.body).slice(0, 160)}`,
      )
  }
  return problems
}
