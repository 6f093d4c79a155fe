import { describe, expect, it } from 'vitest'
import {
  isLargeDocument,
  MAX_EVENT_LOOP_DOCUMENT_NODES as MAX,
  noteDocumentText,
} from './iglu-validation.js'

/** `data` as the pipeline marks it, parsed from a text long enough to be counted. */
function parsedFromLongText<T extends object>(data: T): T {
  noteDocumentText(data, 10 * MAX)
  return data
}

describe('documents validated off the event loop', () => {
  it('counts an array with its items: one node more than the limit makes it large', () => {
    expect(isLargeDocument(parsedFromLongText(Array.from({ length: MAX - 1 }, () => 'x')))).toBe(
      false,
    )
    expect(isLargeDocument(parsedFromLongText(Array.from({ length: MAX }, () => 'x')))).toBe(true)
  })

  it('finds a list of 100 000 items, or an object of many keys, large', () => {
    expect(
      isLargeDocument(parsedFromLongText({ tags: Array.from({ length: 100_000 }, String) })),
    ).toBe(true)
    const keys = Object.fromEntries(Array.from({ length: MAX + 1 }, (_, at) => [`k${at}`, at]))
    expect(isLargeDocument(parsedFromLongText(keys))).toBe(true)
  })

  it('counts nested containers, and never data parsed from a short text', () => {
    const nested = { a: Array.from({ length: MAX / 2 }, () => ({ b: 1 })) }
    expect(isLargeDocument(parsedFromLongText(nested))).toBe(true)
    const unmarked = Array.from({ length: 10 * MAX }, () => 'x')
    noteDocumentText(unmarked, 100)
    expect(isLargeDocument(unmarked)).toBe(false)
    expect(isLargeDocument(null)).toBe(false)
  })
})
