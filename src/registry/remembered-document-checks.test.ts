import { describe, expect, it } from 'vitest'
import { rememberedDocumentChecks, type DocumentCheck } from './remembered-document-checks.js'
import type { SchemaDocumentCheck } from './schema-validation.js'

/** A check that reports on the text it was given, and counts its calls. */
function countingCheck(answer?: (text: string) => SchemaDocumentCheck) {
  const calls: string[] = []
  const check: DocumentCheck = async (data, bodyText) => {
    const text = bodyText ?? JSON.stringify(data)
    calls.push(text)
    return (
      answer?.(text) ?? {
        kind: 'report',
        report: { key: null, errors: [`/: ${text}`], warnings: [], info: [] },
        text,
        contentHash: `hash of ${text}`,
      }
    )
  }
  return { calls, check }
}

describe('rememberedDocumentChecks', () => {
  it('checks a text once, and again only a text it has not seen', async () => {
    const { calls, check } = countingCheck()
    const remembered = rememberedDocumentChecks(check)
    const first = await remembered({ a: 1 }, '{"a":1}')
    expect(await remembered({ a: 1 }, '{"a":1}')).toEqual(first)
    expect(calls).toEqual(['{"a":1}'])
    // The same document written otherwise is another text: checked, as the numbers may differ.
    await remembered({ a: 1 }, '{"a":1.0}')
    // Without a text, the parsed document's JSON is the key, and is not a text's.
    await remembered({ a: 1 })
    await remembered({ a: 1 })
    expect(calls).toEqual(['{"a":1}', '{"a":1.0}', '{"a":1}'])
  })

  it('asks again after a refusal for lack of time or of room', async () => {
    let busy = true
    const { calls, check } = countingCheck(() =>
      busy ? { kind: 'busy', detail: 'queue full' } : { kind: 'too-costly', detail: 'timeout' },
    )
    const remembered = rememberedDocumentChecks(check)
    expect(await remembered({}, '{}')).toEqual({ kind: 'busy', detail: 'queue full' })
    busy = false
    expect(await remembered({}, '{}')).toEqual({ kind: 'too-costly', detail: 'timeout' })
    await remembered({}, '{}')
    expect(calls).toHaveLength(3)
  })

  it('keeps at most its entries and its bytes, forgetting the least recently asked', async () => {
    const { calls, check } = countingCheck()
    const remembered = rememberedDocumentChecks(check, { entries: 2, bytes: 1_000_000 })
    for (const text of ['"a"', '"b"', '"a"', '"c"', '"a"', '"b"']) await remembered(null, text)
    // "b" was the least recently asked when "c" came, and was forgotten.
    expect(calls).toEqual(['"a"', '"b"', '"c"', '"b"'])

    const small = countingCheck()
    const bounded = rememberedDocumentChecks(small.check, { entries: 100, bytes: 2_000 })
    const large = `"${'x'.repeat(1_000)}"`
    await bounded(null, large)
    await bounded(null, large)
    // Heavier than the whole bound (its text and its message, two bytes a character): never kept.
    expect(small.calls).toHaveLength(2)
  })
})
