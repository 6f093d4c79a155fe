import { PassThrough, Writable } from 'node:stream'
import { MessageChannel } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { bridgedOutput, serveOutput } from './output-bridge.js'

const channels: MessageChannel[] = []
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close()
    channel.port2.close()
  }
})

function bridge(destination: Writable) {
  const channel = new MessageChannel()
  channels.push(channel)
  const stop = serveOutput(destination, channel.port1)
  return { output: bridgedOutput(channel.port2), stop }
}

const write = (stream: Writable, text: string) =>
  new Promise<void>((resolve, reject) =>
    stream.write(text, (error) => (error ? reject(error) : resolve())),
  )

describe('printed events across threads', () => {
  it('is done writing only once the other end has written it, in order', async () => {
    const destination = new PassThrough()
    const lines: string[] = []
    destination.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')))
    const { output, stop } = bridge(destination)
    await write(output, 'a\n')
    expect(lines).toEqual(['a\n'])
    await Promise.all([write(output, 'b\n'), write(output, 'ü\n')])
    expect(lines).toEqual(['a\n', 'b\n', 'ü\n'])
    stop()
    output.stop()
  })

  it("reports the other end's failure to write, and writes waiting when stopped fail", async () => {
    const failing = new Writable({
      write: (_chunk, _encoding, callback) => callback(new Error('disk full')),
    })
    failing.on('error', () => undefined)
    const { output, stop } = bridge(failing)
    output.on('error', () => undefined)
    await expect(write(output, 'a\n')).rejects.toThrow('disk full')
    stop()

    const silent = bridge(new PassThrough())
    silent.stop()
    silent.output.on('error', () => undefined)
    const waiting = write(silent.output, 'never written\n')
    silent.output.stop()
    await expect(waiting).rejects.toThrow('the main thread is gone')
  })
})
