import { MessageChannel } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { exactJsonText, parseJsonExactly } from '../../iglu/index.js'
import type { EventSpecification } from '../pipeline/steps/check-event-specification.js'
import { cachedSpecificationIndex } from '../specification-index.js'
import { bridgedSpecifications, serveSpecifications } from './specifications-bridge.js'

const channels: MessageChannel[] = []
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close()
    channel.port2.close()
  }
})

const SCHEMA_TEXT =
  '{"type":"object","properties":{"total":{"type":"integer","maximum":9223372036854775807}}}'

const specification = (id: string): EventSpecification => ({
  id,
  version: 1,
  status: 'published',
  name: `Spec ${id}`,
  dataProductId: null,
  dataProductName: null,
  eventSource: 'iglu:com.acme/checkout/jsonschema/1-0-0',
  eventSchema: parseJsonExactly(SCHEMA_TEXT) as Record<string, unknown>,
  entities: [],
  appIds: ['shop'],
})

/** Tracking plans on "the main thread", read through a channel. */
function bridge(options: { failing?: boolean } = {}) {
  const plans = {
    specifications: [specification('a')],
    revision: 0,
    reads: 0,
  }
  const channel = new MessageChannel()
  channels.push(channel)
  const served = serveSpecifications(
    {
      list: async () => {
        plans.reads++
        if (options.failing === true) throw new Error('database away')
        return plans.specifications
      },
      revision: () => plans.revision,
    },
    channel.port1,
  )
  const source = bridgedSpecifications(channel.port2, { sharedWithOtherInstances: false })
  return { plans, served, source }
}

/** Waits, with a deadline, until `check` holds (a message takes a turn or two to cross). */
async function until(check: () => boolean) {
  const deadline = Date.now() + 5000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('event specifications across threads', () => {
  it('reads the specifications of the other end, their numbers as written', async () => {
    const { source } = bridge()
    const [read] = await source.list()
    expect(read?.id).toBe('a')
    expect(read?.appIds).toEqual(['shop'])
    expect(exactJsonText(read?.eventSchema)).toBe(SCHEMA_TEXT)
    source.stop()
  })

  it('learns of a write by the revision the other end tells, and its index is read again', async () => {
    const { plans, served, source } = bridge()
    const index = cachedSpecificationIndex(
      source,
      () => 0,
      (error) => {
        throw error
      },
    )
    expect((await index.current()).byId('a')?.name).toBe('Spec a')
    expect(await index.current()).toBe(await index.current())
    const readsBefore = plans.reads

    plans.specifications = [specification('a'), specification('b')]
    plans.revision = 1
    served.changed()
    await until(() => source.revision() === 1)
    expect((await index.current()).byId('b')?.name).toBe('Spec b')
    expect(plans.reads).toBe(readsBefore + 1)
    source.stop()
  })

  it("says the other end's failure, and fails reads under way when stopped", async () => {
    const failing = bridge({ failing: true })
    await expect(failing.source.list()).rejects.toThrow('database away')
    failing.source.stop()

    const { served, source } = bridge()
    served.stop()
    const unanswered = source.list()
    source.stop()
    await expect(unanswered).rejects.toThrow('stopped answering')
  })
})
