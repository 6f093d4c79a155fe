import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import { aGoodEvent } from '../../test/support/event-store.contract.js'
import { countTurns } from '../../test/support/event-loop-watch.js'
import { createEventOutput } from './event-output.js'
import { WAIT_DEADLINE } from '../../test/support/poll-until.js'

describe('forwarding to a destination that does not keep up', () => {
  it('holds at most the bound on its way, drops the rest, reports the first drop and then how many were dropped', async () => {
    const waiting: ServerResponse[] = []
    const bodies: string[] = []
    const destination = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      request.on('end', () => {
        bodies.push(body)
        waiting.push(response) // answered only when the test says so
      })
    })
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(destination.address() as AddressInfo).port}/collect`
      const errors: string[] = []
      const batch = (appId: string) => [aGoodEvent({ appId })]
      const probe = new PassThrough()
      let line = ''
      probe.on('data', (chunk: Buffer) => (line += chunk.toString('utf8')))
      const printer = createEventOutput({
        format: 'json',
        stream: probe,
        destination: null,
        onError: () => undefined,
      })
      printer.write(batch('app00'))
      await printer.settled()
      const batchBytes = Buffer.byteLength(line.trimEnd())
      const output = createEventOutput({
        format: 'json',
        stream: new Writable({ write: (_chunk, _encoding, done) => done() }),
        destination: url,
        onError: (error) => errors.push(String(error)),
        forwardingBytes: 3 * batchBytes,
      })
      for (let i = 0; i < 10; i++) output.write(batch(`app${String(i).padStart(2, '0')}`))
      await vi.waitFor(() => expect(bodies).toHaveLength(3), WAIT_DEADLINE)
      expect(bodies.map((body) => (JSON.parse(body) as { app_id: string }).app_id)).toEqual([
        'app00',
        'app01',
        'app02',
      ])
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain('is not keeping up')

      for (const response of waiting.splice(0)) response.end('ok')
      await vi.waitFor(() => expect(output.bytesOnTheWay).toBe(0), WAIT_DEADLINE)
      output.write(batch('app10'))
      await vi.waitFor(() => expect(bodies).toHaveLength(4), WAIT_DEADLINE)
      waiting.splice(0).forEach((response) => response.end('ok'))
      await vi.waitFor(() => expect(errors).toHaveLength(2), WAIT_DEADLINE)
      expect(errors[1]).toContain('caught up; 7 events were not forwarded')
      expect((JSON.parse(bodies[3]!) as { app_id: string }).app_id).toBe('app10')
    } finally {
      for (const response of waiting) response.end()
      await new Promise<void>((resolve) => destination.close(() => resolve()))
    }
  })
})

describe('printing a large batch', () => {
  it('lets the event loop turn while it renders, and prints the batches in the order written', async () => {
    const probe = new PassThrough()
    let printed = ''
    probe.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')))
    const output = createEventOutput({
      format: 'json',
      stream: probe,
      destination: null,
      onError: (error) => {
        throw error
      },
    })
    const batch = (prefix: string, size: number) =>
      Array.from({ length: size }, (_, i) => aGoodEvent({ appId: `${prefix}${i}` }))
    const loop = countTurns()
    try {
      output.write(batch('a', 3_000))
      output.write(batch('b', 2))
      await output.settled()
      // ~5 ms of rendering a slice, then a turn: 3 000 events take several.
      expect(loop.turns()).toBeGreaterThan(2)
    } finally {
      loop.stop()
    }
    const appIds = printed
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { app_id: string }).app_id)
    expect(appIds).toHaveLength(3_002)
    expect(appIds.slice(0, 2)).toEqual(['a0', 'a1'])
    expect(appIds.slice(-3)).toEqual(['a2999', 'b0', 'b1'])
  })
})
