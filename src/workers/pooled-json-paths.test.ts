import { afterAll, describe, expect, it } from 'vitest'
import { exactJsonText, RoundedNumberText } from '../iglu/index.js'
import { selectionKeepingTexts } from '../inspection/pipeline/enrichments/json-path-selection.js'
import { CostlyWorkPool } from './costly-work-pool.js'
import { pooledJsonPaths } from './pooled-json-paths.js'

// The worker runs the build (dist/), which `npm test` makes first.

describe('JSONPaths in the worker pool', () => {
  const pool = new CostlyWorkPool({
    processes: 1,
    eager: false,
    timeoutMs: 30_000,
    memoryMb: 256,
    maxQueue: 10,
  })
  afterAll(() => pool.close())
  const select = pooledJsonPaths(pool)
  const text = '{"a":{"record":{"id":9007199254740993,"tags":["x",2]}},"b":[{"record":{"id":1}}]}'

  it("answers each path's values with the numbers a double rounds kept as written", async () => {
    const [records, missing] = await select(['$..record', '$.nothing'], text)
    expect(records?.ok).toBe(true)
    const found = records?.ok ? records.found : []
    expect(exactJsonText(found)).toBe('[{"id":9007199254740993,"tags":["x",2]},{"id":1}]')
    expect(missing).toEqual({ ok: true, found: [] })
    // Bare numbers too: the answer's array keeps their texts, which a lookup's input reads.
    const [ids] = await select(['$..id'], text)
    const bare = ids?.ok ? ids.found : []
    expect(exactJsonText(bare)).toBe('[9007199254740993,1]')
    expect(selectionKeepingTexts(bare)).toEqual([new RoundedNumberText('9007199254740993'), 1])
  })

  it('answers the JSON pointers of the places a path selects, for a step that changes them', async () => {
    expect(await select(['$..tags[*]', "$.a['record'].id"], text, 'pointers')).toEqual([
      { ok: true, found: ['/a/record/tags/0', '/a/record/tags/1'] },
      { ok: true, found: ['/a/record/id'] },
    ])
  })

  it('answers a large selection (read on a turn of its own) whole and in order', async () => {
    const tags = Array.from({ length: 30_000 }, (_, at) => `tag ${at}`)
    // A number a double rounds, as written: the values' answer keeps its text.
    const large = `{"tags":${JSON.stringify(tags)},"n":12345678901234567890}`
    const [pointers, values] = await Promise.all([
      select(['$.tags[*]'], large, 'pointers'),
      select(['$.tags[*]', '$.n'], large),
    ])
    expect(pointers).toEqual([{ ok: true, found: tags.map((_, at) => `/tags/${at}`) }])
    expect(values?.[0]).toEqual({ ok: true, found: tags })
    expect(exactJsonText(values?.[1]?.ok ? values[1].found : [])).toBe('[12345678901234567890]')
  })
})
