import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { backends, type TestDatabase } from './support/test-databases.js'

// A PostgreSQL server that goes away while Floe runs (a restart, a network cut): requests that need
// it are answered 503 DATABASE_UNAVAILABLE with Retry-After, not 500, and are served again once it
// is back. The server is reached through a proxy that the test closes and opens again.

const postgres = backends.find((backend) => backend.name === 'postgres')

/** A TCP proxy to `target` on a port of its own, which `cut` closes with every connection. */
function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>()
  let server: net.Server | null = null
  let port = 0
  const open = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('error', () => undefined)
          socket.on('close', () => sockets.delete(socket))
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port
        resolve()
      })
    })
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server?.close(() => resolve())
    })
  return { open, cut, port: () => port }
}

describe.runIf(postgres !== undefined)('a PostgreSQL server that goes away', () => {
  let database: TestDatabase
  let server: TestApp
  let admin: ApiClient
  let proxy: ReturnType<typeof tcpProxy>

  beforeAll(async () => {
    database = await postgres!.create()
    if (database.config.kind !== 'postgres') throw new Error('expected a PostgreSQL database')
    const url = new URL(database.config.url)
    proxy = tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    await proxy.open()
    url.hostname = '127.0.0.1'
    url.port = String(proxy.port())
    server = await startTestApp(testConfig({ db: { kind: 'postgres', url: url.toString() } }))
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => {
    await server?.close()
    await proxy?.cut()
    await database?.drop()
  })

  it('is answered 503 with Retry-After while it is away, and served again once it is back', async () => {
    expect((await admin.call('GET', '/data-structures/v1')).status).toBe(200)
    await proxy.cut()

    const structures = await admin.call('GET', '/data-structures/v1')
    expect(structures).toMatchObject({
      status: 503,
      body: { code: 'DATABASE_UNAVAILABLE', message: expect.stringMatching(/retry/) },
    })
    expect(structures.headers.get('retry-after')).toBe('5')
    // The tracking scenarios API in its envelope.
    expect(await admin.call('GET', '/tracking-scenarios/v1')).toMatchObject({
      status: 503,
      body: { data: [], errors: [{ code: 'ServiceUnavailable' }] },
    })
    const iglu = await admin.callAt('GET', `/iglu/${admin.organizationId}/dev/api/schemas`)
    expect(iglu.status).toBe(503)

    await proxy.open()
    // The pool connects again at the next request.
    expect((await admin.call('GET', '/data-structures/v1')).status).toBe(200)
    expect((await admin.call('GET', '/tracking-scenarios/v1')).status).toBe(200)
  })
})
