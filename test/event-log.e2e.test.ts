import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startFloe, type FloeProcess } from './support/floe-process.js'

/** The messages of the JSON log lines printed so far. */
function logMessages(printed: string): string[] {
  return printed
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg))
}

/** Waits for the child's output to show `pattern` (lines reach this process a little after they are written). */
async function printed(read: () => string, pattern: RegExp): Promise<string> {
  await vi.waitFor(() => expect(read()).toMatch(pattern), { timeout: 10_000, interval: 20 })
  return read()
}

async function storedCount(server: FloeProcess): Promise<number> {
  const { body } = await requestJson(`${server.baseUrl}/micro/all`)
  return body.total as number
}

describe('floe start: the event log', () => {
  let dir: string
  let server: FloeProcess | null = null
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-event-log-'))
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('logs a line per good and bad event, as Micro does, and not the tracker requests themselves', async () => {
    server = await startFloe(['--no-iglu-central', '--log-level', 'info'], {
      FLOE_DATA_DIR: path.join(dir, 'info'),
    })
    await fetch(
      `${server.baseUrl}/i?e=pv&p=web&tv=js-4&aid=shop&url=${encodeURIComponent('https://shop.example/')}`,
    )
    await fetch(`${server.baseUrl}/i?e=nonsense&p=web`)
    await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example' },
    })
    expect(await storedCount(server)).toBe(2)
    const output = await printed(
      () => server?.stdout() ?? '',
      /"url":"\/micro\/all"[^\n]*\n(.|\n)*"request completed"/,
    )

    const messages = logMessages(output)
    const good = messages.filter((message) => message.startsWith('GOOD '))
    expect(good).toHaveLength(1)
    expect(good[0]).toMatch(
      /^GOOD id:[0-9a-f-]{36} app_id:shop type:page_view \(iglu:com\.snowplowanalytics\.snowplow\/page_view\/jsonschema\/1-0-0\)$/,
    )
    const bad = messages.filter((message) => message.startsWith('BAD '))
    expect(bad).toHaveLength(1)
    expect(bad[0]).toContain('schema_violations: ')
    expect(bad[0]).toContain('Not a valid event type')
    // The API's own request is logged as before; the three collector requests are not.
    expect(output).toContain('"url":"/micro/all"')
    expect(output).not.toMatch(/"url":"\/(i|com\.snowplowanalytics\.snowplow\/tp2)[?"]/)
    // stdout is for programs: every line is JSON, and the banner (for people) is on stderr.
    for (const line of output.split('\n').filter((text) => text !== ''))
      expect(() => JSON.parse(line) as unknown, line).not.toThrow()
    expect(server.stderr()).toContain('Floe is listening on')
    expect(await server.stop('SIGTERM')).toBe(0)
    server = null
  })

  it('logs lines for people with --log-format pretty (JSON lines otherwise, when not on a terminal)', async () => {
    server = await startFloe(
      ['--no-iglu-central', '--log-level', 'info', '--log-format', 'pretty'],
      { FLOE_DATA_DIR: path.join(dir, 'pretty') },
    )
    await fetch(`${server.baseUrl}/i?e=pv&p=web&aid=shop`)
    expect(await storedCount(server)).toBe(1)
    const output = await printed(() => server?.stdout() ?? '', /INFO: request completed/)
    expect(output).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GOOD id:[0-9a-f-]{36} app_id:shop type:page_view \(iglu:[^)]+\)$/m,
    )
    expect(output).toMatch(
      /^\[[\d:.]+\] INFO: request completed \{"reqId":"req-\d+","res":\{"statusCode":200\}/m,
    )
    expect(output).not.toMatch(/^\{"level"/m)
    // Lines for people on stdout: the banner joins them there.
    expect(output).toContain('Floe is listening on')
    expect(server.stderr()).not.toContain('Floe is listening on')
    // No colours: the output is not a terminal.
    expect(output).not.toContain('\u001b[')
    expect(await server.stop('SIGTERM')).toBe(0)
    server = null
  })

  it('prints no event log below info', async () => {
    server = await startFloe(['--no-iglu-central', '--log-level', 'warn'], {
      FLOE_DATA_DIR: path.join(dir, 'warn'),
    })
    await fetch(`${server.baseUrl}/i?e=pv&p=web&aid=shop`)
    await fetch(`${server.baseUrl}/i?e=nonsense&p=web`)
    expect(await storedCount(server)).toBe(2)
    expect(await server.stop('SIGTERM')).toBe(0)
    expect(server.stdout()).not.toMatch(/GOOD id:|BAD /)
    server = null
  })
})
