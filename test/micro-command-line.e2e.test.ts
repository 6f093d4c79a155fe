import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import { pollUntil } from './support/poll-until.js'

const CONFIG_DIR = fileURLToPath(new URL('./fixtures/micro-config/', import.meta.url))

describe("floe start with Micro's command line", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-micro-cli-'))
  let server: FloeProcess | null = null
  afterAll(async () => {
    await server?.stop('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it("starts with the JavaScript tracker suite's --collector-config and --iglu, and collects with its cookie", async () => {
    // The suite's exact arguments; the port is the one free here (the suite maps Docker's 9090).
    server = await startFloe(
      [
        '--collector-config',
        path.join(CONFIG_DIR, 'micro.conf'),
        '--iglu',
        path.join(CONFIG_DIR, 'iglu.json'),
        '--log-level',
        'info',
      ],
      { FLOE_DATA_DIR: path.join(dir, 'data') },
    )
    const answer = await fetch(
      `${server.baseUrl}/i?e=pv&p=web&tv=js-4&aid=shop&url=${encodeURIComponent('https://shop.example/')}`,
    )
    expect(answer.status).toBe(200)
    expect(answer.headers.get('set-cookie')).toMatch(
      /^micro=[0-9a-f-]{36}; Expires=[^;]+; Path=\/; SameSite=None$/,
    )
    const good = await pollUntil(
      async () => (await requestJson(`${server!.baseUrl}/micro/all`)).body,
      (counts) => counts.total === 1,
      'the page view to be stored',
    )
    expect(good).toMatchObject({ total: 1, good: 1, bad: 0 })
    expect(server.stdout()).toMatch(
      /--collector-config: settings Floe has no use for, ignored: akka, collector\.cookie\.expiration/,
    )
  })
})
