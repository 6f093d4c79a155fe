import { describe, expect, it } from 'vitest'
import { heapUsedAfterGc as heapUsed } from '../../test/support/heap-after-gc.js'
import { PostgresLog } from './postgres-log.js'

describe("PostgreSQL's log of an embedded cluster", () => {
  it('gives its PANIC and FATAL lines, without their prefix, before the error it explains', () => {
    const log = new PostgresLog()
    log.take('2026-12-01 05:01:09.497 UTC [42] LOG:  database system was interrupted\n')
    log.take('2026-12-01 05:01:09.498 UTC [42] PANIC:  could not locate a valid checkpoint record')
    const explained = log.explain(new Error('Aborted(). Build with -sASSERTIONS for more info.'))
    expect((explained as Error).message).toBe(
      'PANIC: could not locate a valid checkpoint record (Aborted(). Build with -sASSERTIONS for more info)',
    )
    expect((explained as Error).cause).toBeInstanceOf(Error)
  })

  it('gives its last line when none is PANIC or FATAL, and the error alone when it said nothing', () => {
    const error = new Error('PGlite failed to initialize properly')
    expect(new PostgresLog().explain(error)).toBe(error)
    const log = new PostgresLog()
    log.take('postgres: could not access the server configuration file "x": No such file')
    expect((log.explain(error) as Error).message).toBe(
      'postgres: could not access the server configuration file "x": No such file (PGlite failed to initialize properly)',
    )
  })

  it('keeps a bounded number of lines of bounded length, the most recent', () => {
    const log = new PostgresLog()
    for (let line = 0; line < 10_000; line++) log.take(`FATAL:  line ${line} ${'x'.repeat(2_000)}`)
    const words = log.lastWords() ?? ''
    const lines = words.split('; ')
    expect(lines).toHaveLength(PostgresLog.LINES)
    expect(lines[0]).toMatch(/^FATAL: line 9984 x+$/)
    expect(lines.every((line) => line.length <= PostgresLog.LINE_CHARS)).toBe(true)
  })

  it('keeps no more of a long line than its first characters', () => {
    const log = new PostgresLog()
    const before = heapUsed()
    // A failed statement's text, as PostgreSQL logs it: 16 lines of 4 MB each.
    for (let line = 0; line < PostgresLog.LINES; line++)
      log.take(`STATEMENT:  insert into t values ('${String(line).repeat(4_000_000)}')`)
    // Kept slices of them would hold all 64 MB.
    expect(heapUsed() - before).toBeLessThan(1_000_000)
    const words = log.lastWords() ?? ''
    expect(words).toMatch(/^STATEMENT: insert into t values \('(15)+1?$/)
    expect(words.length).toBeGreaterThan(PostgresLog.LINE_CHARS - 10)
  })
})
