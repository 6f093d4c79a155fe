import { afterEach, describe, expect, it } from 'vitest'
import { parseJsonExactly } from '../iglu/index.js'
import { CostlyWorkPool } from './costly-work-pool.js'
import { pooledValidation } from './pooled-validation.js'

// The worker runs the build (dist/), which `npm test` makes first.

/** A schema at the published limit of 1 000 properties, with a bound past a double's precision. */
const schemaText = JSON.stringify({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 1_000 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 5 }]),
  ),
  additionalProperties: false,
}).replace(
  '"properties":{',
  '"properties":{"big":{"type":"integer","maximum":9223372036854775807},',
)

describe('event data validated in the worker pool', () => {
  let pool: CostlyWorkPool | undefined
  afterEach(async () => {
    await pool?.close()
  })

  it('answers as the event loop would, the bounds and the values compared as written', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 10_000,
      memoryMb: 256,
      maxQueue: 10,
    })
    const validate = pooledValidation(pool)
    const schema = parseJsonExactly(schemaText) as Record<string, unknown>
    expect(
      await validate(schema, parseJsonExactly('{"p0":"short","big":9223372036854775807}')),
    ).toEqual({ kind: 'valid' })
    expect(
      await validate(schema, parseJsonExactly('{"p1":"much too long","big":9223372036854775808}')),
    ).toMatchObject({
      kind: 'invalid',
      error: {
        error: 'ValidationError',
        dataReports: expect.arrayContaining([
          expect.objectContaining({ path: '$.big', keyword: 'maximum' }),
          expect.objectContaining({ path: '$.p1', keyword: 'maxLength' }),
        ]),
      },
    })
  })

  it('makes the data invalid, naming the limit, when the pool stops the task', async () => {
    // Compiling 1 000 properties takes far longer than a millisecond.
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 1,
      memoryMb: 256,
      maxQueue: 10,
    })
    const verdict = await pooledValidation(pool)(
      parseJsonExactly(schemaText) as Record<string, unknown>,
      { p0: 'short' },
    )
    expect(verdict).toMatchObject({
      kind: 'invalid',
      error: {
        dataReports: [
          {
            path: '$',
            keyword: 'schema',
            message: expect.stringContaining('FLOE_WORKER_TIMEOUT_MS'),
          },
        ],
      },
    })
  })
})
