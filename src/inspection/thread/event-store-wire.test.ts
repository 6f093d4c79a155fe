import { MessageChannel } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { CommaLedJson } from '../api/json-array.js'
import { fromWireJsonText, toWireJsonPage, type WireJsonText } from './event-store-wire.js'

describe('a page of JSON texts as it crosses', () => {
  it('is packed in a buffer of its own, transferred, and read back as the same texts', async () => {
    // Texts that view a large block, as the memory store keeps them.
    const block = Buffer.alloc(1024 * 1024)
    const first = block.subarray(0, block.write('{"a":1}'))
    block.write(',{"b":"ü"}', 4096)
    const second = new CommaLedJson(block.subarray(4096, 4096 + Buffer.byteLength(',{"b":"ü"}')))
    const { items, packed } = toWireJsonPage([first, '{"c":3}', second])
    expect(packed?.byteLength).toBe(first.byteLength + second.bytes.byteLength)

    const channel = new MessageChannel()
    try {
      const received = new Promise<readonly WireJsonText[]>((resolve) =>
        channel.port2.once('message', resolve),
      )
      channel.port1.postMessage(items, packed === null ? [] : [packed])
      // Transferred: the sender's buffer is gone, the block it was copied from untouched.
      expect(packed?.byteLength).toBe(0)
      expect(first.toString()).toBe('{"a":1}')
      const texts = (await received).map(fromWireJsonText)
      expect(
        texts.map((text) => (text instanceof CommaLedJson ? text.bytes : text).toString()),
      ).toEqual(['{"a":1}', '{"c":3}', ',{"b":"ü"}'])
      expect(texts[2]).toBeInstanceOf(CommaLedJson)
      expect(Buffer.isBuffer(texts[0])).toBe(true)
    } finally {
      channel.port1.close()
      channel.port2.close()
    }
  })

  it('sends texts in shared memory as views of it, copying only the others', async () => {
    const shared = Buffer.from(new SharedArrayBuffer(1024 * 1024))
    const kept = new CommaLedJson(shared.subarray(100, 100 + shared.write(',{"k":1}', 100)))
    const own = Buffer.from('{"o":2}')
    const { items, packed } = toWireJsonPage([kept, own])
    expect(packed?.byteLength).toBe(own.byteLength)

    const channel = new MessageChannel()
    try {
      const received = new Promise<readonly WireJsonText[]>((resolve) =>
        channel.port2.once('message', resolve),
      )
      channel.port1.postMessage(items, packed === null ? [] : [packed])
      const texts = (await received).map(fromWireJsonText)
      const keptThere = texts[0] as CommaLedJson
      expect(keptThere.bytes.toString()).toBe(',{"k":1}')
      expect((texts[1] as Buffer).toString()).toBe('{"o":2}')
      // The same memory, not a copy: a byte written here is seen there.
      expect(keptThere.bytes.buffer).toBeInstanceOf(SharedArrayBuffer)
      shared[101] = 0x5b // '['
      expect(keptThere.bytes.toString()).toBe(',["k":1}')
    } finally {
      channel.port1.close()
      channel.port2.close()
    }
  })

  it('packs nothing for a page of strings only', () => {
    expect(toWireJsonPage(['{"a":1}'])).toEqual({ items: ['{"a":1}'], packed: null })
  })
})
