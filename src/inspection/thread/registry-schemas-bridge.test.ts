import { MessageChannel } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { exactJsonText, parseJsonExactly, type SchemaKey } from '../../iglu/index.js'
import { bridgedRegistrySchemas, serveRegistrySchemas } from './registry-schemas-bridge.js'

const channels: MessageChannel[] = []
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close()
    channel.port2.close()
  }
})

const key = (name: string): SchemaKey => ({
  vendor: 'com.acme',
  name,
  format: 'jsonschema',
  version: { model: 1, revision: 0, addition: 0 },
})
const TEXT = '{"type":"object","properties":{"n":{"type":"integer","maximum":9223372036854775807}}}'

/** A registry on "the main thread" holding `search` (its bound as written), asked through a channel. */
function bridge(options: { failing?: boolean } = {}) {
  let time = 1_000_000
  const now = () => time
  const asked: string[] = []
  let release: (() => void) | null = null
  const registry = {
    /** While set, lookups wait for `release()`. */
    hold: false,
    async lookup(wanted: SchemaKey) {
      asked.push(wanted.name)
      if (registry.hold) await new Promise<void>((resolve) => (release = resolve))
      if (options.failing === true) throw new Error('database away')
      return wanted.name === 'search' ? (parseJsonExactly(TEXT) as Record<string, unknown>) : null
    },
    peek: () => undefined,
    keptUntil: () => time + 2000,
  }
  const channel = new MessageChannel()
  channels.push(channel)
  const served = serveRegistrySchemas(registry, channel.port1, now)
  const schemas = bridgedRegistrySchemas(channel.port2, now)
  return {
    registry,
    served,
    schemas,
    asked,
    release: () => release?.(),
    moveTo: (at: number) => (time = at),
  }
}

describe("the registry's schemas across threads", () => {
  it('answers a lookup, then peeks it without asking, its numbers as written', async () => {
    const { schemas, asked } = bridge()
    expect(schemas.peek(key('search'))).toBeUndefined()
    const schema = await schemas.lookup(key('search'))
    expect(exactJsonText(schema)).toBe(TEXT)
    expect(exactJsonText(schemas.peek(key('search')))).toBe(TEXT)
    expect(await schemas.lookup(key('search'))).toBe(schema)
    // A schema not deployed is kept as a miss, as the registry's own cache keeps it.
    expect(await schemas.lookup(key('other'))).toBeNull()
    expect(schemas.peek(key('other'))).toBeNull()
    expect(asked).toEqual(['search', 'other'])
  })

  it('keeps an answer as long as the main thread keeps it, and asks once for lookups made together', async () => {
    const { schemas, asked, moveTo } = bridge()
    const together = await Promise.all([1, 2, 3].map(() => schemas.lookup(key('search'))))
    expect(new Set(together).size).toBe(1)
    expect(asked).toEqual(['search'])
    moveTo(1_000_000 + 1999)
    expect(schemas.peek(key('search'))).toBeDefined()
    moveTo(1_000_000 + 2000)
    expect(schemas.peek(key('search'))).toBeUndefined()
    await schemas.lookup(key('search'))
    expect(asked).toEqual(['search', 'search'])
  })

  it('forgets every answer when told of a deployment, and keeps none asked before it', async () => {
    const { registry, served, schemas, asked, release } = bridge()
    await schemas.lookup(key('search'))
    served.forget()
    await expect.poll(() => schemas.peek(key('search'))).toBeUndefined()
    // A lookup under way when a deployment is told: answered, but not kept.
    registry.hold = true
    const under = schemas.lookup(key('search'))
    await expect.poll(() => asked.length).toBe(2)
    // Told before the answer is sent: the channel keeps the order.
    served.forget()
    registry.hold = false
    release()
    expect(await under).not.toBeNull()
    expect(schemas.peek(key('search'))).toBeUndefined()
    // The next lookup asks again.
    await schemas.lookup(key('search'))
    expect(asked).toEqual(['search', 'search', 'search'])
  })

  it("fails a lookup the main thread's registry failed, keeping nothing, and every waiting one once stopped", async () => {
    const failing = bridge({ failing: true })
    await expect(failing.schemas.lookup(key('search'))).rejects.toThrow('database away')
    expect(failing.schemas.peek(key('search'))).toBeUndefined()
    const held = bridge()
    held.registry.hold = true
    const waiting = held.schemas.lookup(key('search'))
    await expect.poll(() => held.asked.length).toBe(1)
    held.schemas.stop()
    await expect(waiting).rejects.toThrow("the registry's thread stopped answering")
  })
})
