import { describe, expect, it } from 'vitest'
import { EmbeddedDatabaseStartError } from './create-db.js'
import { EmbeddedDatabaseStoppedError } from './pglite-thread.js'
import { isDiskFull, isStoreUnavailable } from './store-unavailable.js'
import { EmbeddedDatabaseLostError } from './backend-loss.js'

const withFields = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields)

describe('a statement that failed because the database is not there', () => {
  it('is told from one that failed for what it asked', () => {
    const unavailable = [
      withFields('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      withFields('read ECONNRESET', { code: 'ECONNRESET' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      withFields('terminating connection due to administrator command', { code: '57P01' }),
      withFields('the database system is starting up', { code: '57P03' }),
      withFields('sorry, too many clients already', { code: '53300' }),
      withFields('connection failure', { code: '08006' }),
      new EmbeddedDatabaseStoppedError('exit code 1'),
      { name: 'ExitStatus', message: 'Program terminated with exit(1)', status: 1 },
      new EmbeddedDatabaseStartError('/data', new Error('PGlite failed to initialize properly')),
      withFields('could not extend file "base/5/16723": No space left on device', {
        code: '53100',
        severity: 'ERROR',
      }),
      withFields('could not write to log file', { code: '53100', severity: 'PANIC' }),
      new EmbeddedDatabaseLostError(new Error('could not write to log file')),
      // From the cluster's own thread: its fields only.
      withFields('the embedded database stopped: …', { name: 'EmbeddedDatabaseLostError' }),
    ]
    for (const error of unavailable) expect(isStoreUnavailable(error), String(error)).toBe(true)

    const faults = [
      withFields('duplicate key value violates unique constraint', { code: '23505' }),
      withFields('syntax error at or near "selec"', { code: '42601' }),
      withFields('canceling statement due to statement timeout', { code: '57014' }),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      'ECONNREFUSED',
      null,
    ]
    for (const error of faults) expect(isStoreUnavailable(error), String(error)).toBe(false)
  })

  it('is told a full disk, by its SQLSTATE or that of the error that caused it', () => {
    const full = withFields('could not write to log file', { code: '53100', severity: 'PANIC' })
    expect(isDiskFull(full)).toBe(true)
    expect(isDiskFull(new EmbeddedDatabaseLostError(full))).toBe(true)
    expect(isDiskFull(withFields('connection failure', { code: '08006' }))).toBe(false)
    expect(isDiskFull(new EmbeddedDatabaseLostError(new Error('exit')))).toBe(false)
  })
})
