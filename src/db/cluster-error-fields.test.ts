import { describe, expect, it } from 'vitest'
import { errorFields } from './cluster-error-fields.js'

/** What Emscripten throws when PostgreSQL in PGlite calls exit(): no Error, but a message. */
class ExitStatus {
  name = 'ExitStatus'
  message: string
  constructor(readonly status: number) {
    this.message = `Program terminated with exit(${status})`
  }
}

describe('a failed statement, as the embedded cluster thread reports it', () => {
  it('keeps an error’s message, name and SQLSTATE fields', () => {
    const error = Object.assign(new TypeError('duplicate key'), {
      code: '23505',
      detail: { no: 1 },
    })
    expect(errorFields(error)).toEqual({
      name: 'TypeError',
      message: 'duplicate key',
      code: '23505',
    })
  })

  it('keeps the message and status of what is thrown without being an Error', () => {
    expect(errorFields(new ExitStatus(1))).toEqual({
      name: 'ExitStatus',
      message: 'Program terminated with exit(1)',
      status: 1,
    })
  })

  it('describes a thrown object without a message by its fields or its class', () => {
    expect(errorFields({ status: 3 }).message).toBe('Object {"status":3}')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(errorFields(cyclic).message).toBe('a thrown Object')
    expect(errorFields(7)).toEqual({ name: 'Error', message: '7' })
  })
})
