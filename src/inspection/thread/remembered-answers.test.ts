import { describe, expect, it } from 'vitest'
import {
  aGoodEvent,
  describeEventStoreContract,
} from '../../../test/support/event-store.contract.js'
import type { GoodEventFilter } from '../api/event-filters.js'
import { CommaLedJson, type JsonPages, type JsonText } from '../api/json-array.js'
import { MemoryEventStore } from '../store/memory-event-store.js'
import { AnswerRememberingStore } from './remembered-answers.js'

describeEventStoreContract(
  'in memory, its JSON answers remembered while it is unchanged',
  async (options = {}) =>
    new AnswerRememberingStore(new MemoryEventStore(100_000, options), () => 0),
)

/** A memory store that counts the JSON answers it is asked for. */
class CountedStore extends MemoryEventStore {
  asked = 0
  override goodJsonPages(filter?: GoodEventFilter): JsonPages {
    this.asked++
    return super.goodJsonPages(filter)
  }
}

const schemaOf = (name: string) => `iglu:test.floe/${name}/jsonschema/1-0-0`

const textOf = (text: JsonText) =>
  text instanceof CommaLedJson ? text.bytes.toString().slice(1) : text.toString()

async function answer(pages: JsonPages): Promise<string[][]> {
  const read: string[][] = []
  for await (const page of pages) read.push(page.map(textOf))
  return read
}

function remembering(answerPage?: number, limits?: { answers: number; bytes: number }) {
  const store = new CountedStore(1000, answerPage === undefined ? {} : { answerPage })
  const processed = { count: 0 }
  const remembered = new AnswerRememberingStore(store, () => processed.count, limits)
  return { store, processed, remembered }
}

describe('answers remembered while the store is unchanged', () => {
  it('answers a question asked again without asking the store, until it changes', async () => {
    const { store, processed, remembered } = remembering()
    await store.keep({ good: [aGoodEvent({ schema: schemaOf('a') })], bad: [], incomplete: [] })
    const first = await answer(remembered.goodJsonPages({ schema: schemaOf('a') }))
    const again = await answer(remembered.goodJsonPages({ schema: schemaOf('a') }))
    expect(again).toEqual(first)
    expect(first[0]).toHaveLength(1)
    expect(store.asked).toBe(1)

    // Events stored by the other thread: it says it processed a request, and the store is asked.
    await store.keep({ good: [aGoodEvent({ schema: schemaOf('a') })], bad: [], incomplete: [] })
    processed.count++
    const after = await answer(remembered.goodJsonPages({ schema: schemaOf('a') }))
    expect(after[0]).toHaveLength(2)
    expect(store.asked).toBe(2)

    // A write or a reset through it changes it too.
    await remembered.keep({
      good: [aGoodEvent({ schema: schemaOf('a') })],
      bad: [],
      incomplete: [],
    })
    expect((await answer(remembered.goodJsonPages({ schema: schemaOf('a') })))[0]).toHaveLength(3)
    await remembered.reset()
    expect(await answer(remembered.goodJsonPages({ schema: schemaOf('a') }))).toEqual([])
    expect(store.asked).toBe(4)
    // An empty answer is remembered too.
    expect(await answer(remembered.goodJsonPages({ schema: schemaOf('a') }))).toEqual([])
    expect(store.asked).toBe(4)
  })

  it('does not remember an answer of more than one page, and still gives it whole', async () => {
    const { store, remembered } = remembering(2)
    await store.keep({
      good: ['a', 'b', 'c', 'd', 'e'].map((appId) => aGoodEvent({ schema: schemaOf(appId) })),
      bad: [],
      incomplete: [],
    })
    const pages = await answer(remembered.goodJsonPages())
    expect(pages).toHaveLength(3)
    expect(JSON.parse(`[${pages.flat().join(',')}]`)).toHaveLength(5)
    expect(await answer(remembered.goodJsonPages())).toEqual(pages)
    expect(store.asked).toBe(2)
    expect(remembered.size).toBe(0)
  })

  it('forgets the least recently asked past its bounds', async () => {
    const { store, remembered } = remembering(undefined, { answers: 2, bytes: 1024 * 1024 })
    await store.keep({
      good: ['a', 'b', 'c'].map((appId) => aGoodEvent({ schema: schemaOf(appId) })),
      bad: [],
      incomplete: [],
    })
    const ask = (appId: string) => answer(remembered.goodJsonPages({ schema: schemaOf(appId) }))
    await ask('a')
    await ask('b')
    await ask('a') // remembered, and now the most recent
    await ask('c') // b forgotten
    expect(store.asked).toBe(3)
    expect(remembered.size).toBe(2)
    await ask('a')
    expect(store.asked).toBe(3)
    await ask('b')
    expect(store.asked).toBe(4)

    // An answer larger than the bound in bytes is never remembered.
    const small = remembering(undefined, { answers: 2, bytes: 10 })
    await small.store.keep({
      good: [aGoodEvent({ schema: schemaOf('a') })],
      bad: [],
      incomplete: [],
    })
    await answer(small.remembered.goodJsonPages())
    await answer(small.remembered.goodJsonPages())
    expect(small.store.asked).toBe(2)
  })

  it('does not remember an answer when the store changed while it was asked', async () => {
    const { store, processed, remembered } = remembering()
    await store.keep({ good: [aGoodEvent({ schema: schemaOf('a') })], bad: [], incomplete: [] })
    const pages = remembered.goodJsonPages()[Symbol.asyncIterator]()
    const reading = pages.next()
    processed.count++ // before the store's answer came back
    expect((await reading).value).toHaveLength(1)
    await pages.return?.(undefined)
    expect(remembered.size).toBe(0)
  })
})
