import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { countTurns } from '../../test/support/event-loop-watch.js'
import { jsonBody } from './json-body.js'

/** The whole body, and the loop's turn count as each chunk arrived. */
async function readAll(body: string | Readable): Promise<{ text: string; turnsAt: number[] }> {
  if (typeof body === 'string') return { text: body, turnsAt: [] }
  const loop = countTurns()
  const chunks: Buffer[] = []
  const turnsAt: number[] = []
  for await (const chunk of body) {
    chunks.push(chunk as Buffer)
    turnsAt.push(loop.turns())
  }
  loop.stop()
  return { text: Buffer.concat(chunks).toString('utf8'), turnsAt }
}

describe('JSON bodies made of serialized parts', () => {
  it('writes objects in key order, arrays of texts, and texts as they are', async () => {
    const body = jsonBody({
      data: ['{"a":1}', '"é"'],
      includes: { owners: '[]', specs: [] },
      metadata: 'null',
    })
    expect(typeof body).toBe('string')
    expect(JSON.parse(body as string)).toEqual({
      data: [{ a: 1 }, 'é'],
      includes: { owners: [], specs: [] },
      metadata: null,
    })
    expect(body).toBe('{"data":[{"a":1},"é"],"includes":{"owners":[],"specs":[]},"metadata":null}')
    expect(jsonBody([])).toBe('[]')
  })

  it('streams a large body in chunks, with a turn of the event loop between two', async () => {
    const items = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ id: i, text: `ü${'x'.repeat(1000)}` }),
    )
    const body = jsonBody({ data: items, errors: '[]' })
    expect(body).toBeInstanceOf(Readable)
    const { text, turnsAt } = await readAll(body)
    expect(text).toBe(`{"data":[${items.join(',')}],"errors":[]}`)
    // ~3 MB in chunks of ~512 k characters: several chunks, each after a turn.
    expect(turnsAt.length).toBeGreaterThanOrEqual(5)
    for (let at = 1; at < turnsAt.length; at++)
      expect(turnsAt[at]!).toBeGreaterThan(turnsAt[at - 1]!)
  })
})
