import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startFloe, type FloeProcess } from './support/floe-process.js'

const SP = 'com.snowplowanalytics.snowplow'

describe('floe start with a small heap, flooded with large bad payloads', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-memory-'))
  let server: FloeProcess | null = null
  afterAll(async () => {
    await server?.stop('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('keeps answering, and keeps only as many bad events as fit in its share of the heap', async () => {
    // A 256 MB heap and 300 unreadable bodies of ~1 MB: each bad event holds ~2 MB (the body and its
    // bad row), so keeping them all (the --max-events bound alone, 100 000) would need ~600 MB.
    server = await startFloe(['--no-iglu-central'], {
      FLOE_DATA_DIR: dataDir,
      NODE_OPTIONS: '--max-old-space-size=256',
    })
    const SENT = 300
    const body = 'x'.repeat(990_000)
    const statuses = new Map<number, number>()
    const send = async (i: number) => {
      const response = await fetch(`${server!.baseUrl}/${SP}/tp2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `${i}`.padStart(8, '0') + body,
      })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
    for (let i = 0; i < SENT; i += 4)
      await Promise.all([send(i), send(i + 1), send(i + 2), send(i + 3)])
    expect(Object.fromEntries(statuses)).toEqual({ 200: SENT })

    const counts = (await (await fetch(`${server.baseUrl}/micro/all`)).json()) as {
      total: number
      good: number
      bad: number
    }
    expect(counts.good).toBe(0)
    expect(counts.bad).toBeGreaterThan(0)
    expect(counts.bad).toBeLessThan(SENT / 4)
    // The newest are the ones kept, and good events still come in.
    const [newest] = (await (
      await fetch(`${server.baseUrl}/micro/bad`, {
        method: 'POST',
        body: JSON.stringify({ limit: 1 }),
      })
    ).json()) as { errors: string[] }[]
    const id = Number(/(\d{8})x/.exec(newest?.errors[1] ?? '')?.[1])
    expect(id).toBeGreaterThanOrEqual(SENT - 4) // sent four at a time: one of the last four
    expect((await fetch(`${server.baseUrl}/i?e=pv&p=web&tv=js-3&aid=after`)).status).toBe(200)
    expect(
      ((await (await fetch(`${server.baseUrl}/micro/all`)).json()) as { good: number }).good,
    ).toBe(1)
    expect(server.child.exitCode).toBeNull()
  }, 180_000)

  it('keeps no more of the events than --events-max-bytes, whatever the heap', async () => {
    await server?.stop('SIGKILL')
    // A default heap (several GB), and a 32 MiB bound per list: 60 unreadable bodies of ~1 MB, each
    // ~4 MB by estimate, would all be kept by the heap's share alone.
    server = await startFloe(['--no-iglu-central', '--events-max-bytes', '32MiB'], {
      FLOE_DATA_DIR: dataDir,
    })
    const SENT = 60
    const body = 'y'.repeat(990_000)
    for (let i = 0; i < SENT; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async (k) =>
          (
            await fetch(`${server!.baseUrl}/${SP}/tp2`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: `${i + k}`.padStart(8, '0') + body,
            })
          ).arrayBuffer(),
        ),
      )
    }
    const counts = (await (await fetch(`${server.baseUrl}/micro/all`)).json()) as { bad: number }
    expect(counts.bad).toBeGreaterThan(0)
    expect(counts.bad).toBeLessThanOrEqual(16)
    expect(server.child.exitCode).toBeNull()
  }, 180_000)
})
