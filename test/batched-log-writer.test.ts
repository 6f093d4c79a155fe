import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { batchedLogWriter, LOG_BATCH_CHARS } from '../src/http/batched-log-writer.js'
import { pollUntil } from './support/poll-until.js'

const WRITER_MODULE = new URL('../dist/http/batched-log-writer.js', import.meta.url).href
const dir = mkdtempSync(path.join(tmpdir(), 'floe-log-writer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A writer to a new file, and what the file holds. */
function fileWriter(name: string) {
  const file = path.join(dir, name)
  const fd = openSync(file, 'w')
  return {
    fd,
    writer: batchedLogWriter(fd),
    written: () => readFileSync(file, 'utf8'),
    close: () => closeSync(fd),
  }
}

/** A child process that writes `lines` to its stdout through the writer, then runs `then`. */
function child(lines: string[], then: string) {
  const script = `
const { batchedLogWriter } = await import(process.argv[1])
const writer = batchedLogWriter(1)
for (const line of JSON.parse(process.argv[2])) writer.write(line)
${then}`
  return spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, '--', WRITER_MODULE, JSON.stringify(lines)],
    { encoding: 'utf8' },
  )
}

describe('the batched log writer', () => {
  it('holds lines for a moment, then writes them together, in order', async () => {
    const { writer, written, close } = fileWriter('held.log')
    writer.write('{"msg":"one"}\n')
    writer.write('{"msg":"two"}\n')
    // Nothing was written while the code that logged still runs…
    expect(written()).toBe('')
    // …and the lines come out once the timer fires, without anything else written.
    await pollUntil(
      async () => written(),
      (text) => text !== '',
      'the held lines',
      5_000,
    )
    expect(written()).toBe('{"msg":"one"}\n{"msg":"two"}\n')
    close()
  })

  it('writes at once when a batch is full, and on flush', () => {
    const { writer, written, close } = fileWriter('full.log')
    const line = `${JSON.stringify({ msg: 'x'.repeat(1000) })}\n`
    const lines = Math.ceil(LOG_BATCH_CHARS / line.length)
    for (let i = 0; i < lines; i++) writer.write(line)
    expect(written()).toBe(line.repeat(lines))
    writer.write('{"msg":"last"}\n')
    expect(written()).toBe(line.repeat(lines))
    let flushed = false
    writer.flush(() => (flushed = true))
    expect([flushed, written().endsWith('{"msg":"last"}\n')]).toEqual([true, true])
    close()
  })

  it('is one writer per descriptor, so that two servers of a process keep their lines in order', () => {
    const { fd: shared, writer, close } = fileWriter('shared.log')
    expect(batchedLogWriter(shared)).toBe(writer)
    const fd = openSync(path.join(dir, 'other.log'), 'w')
    expect(batchedLogWriter(fd)).not.toBe(writer)
    closeSync(fd)
    close()
  })

  it('writes what waits when the process exits, by exit() or by an uncaught error', () => {
    const exited = child(['{"msg":"before exit"}\n'], 'process.exit(3)')
    expect([exited.status, exited.stdout]).toEqual([3, '{"msg":"before exit"}\n'])
    const crashed = child(['{"msg":"before the crash"}\n'], 'throw new Error("boom")')
    expect(crashed.status).toBe(1)
    expect(crashed.stdout).toBe('{"msg":"before the crash"}\n')
    expect(crashed.stderr).toContain('boom')
    // And when the event loop empties: the timer does not keep the process alive.
    const ended = child(['{"msg":"at the end"}\n'], '')
    expect([ended.status, ended.stdout]).toEqual([0, '{"msg":"at the end"}\n'])
  })

  it('stops writing, without an error, when its reader has gone', () => {
    const closedReader = spawnSync(
      'sh',
      [
        '-c',
        `"${process.execPath}" --input-type=module -e "const { batchedLogWriter } = await import('${WRITER_MODULE}'); const w = batchedLogWriter(1); for (let i = 0; i < 2000; i++) w.write('{\\"msg\\":\\"' + 'y'.repeat(200) + '\\"}\\n'); console.error('done')" | head -c 10 > /dev/null`,
      ],
      { encoding: 'utf8' },
    )
    expect(closedReader.stderr).toContain('done')
    expect(closedReader.stderr).not.toMatch(/EPIPE|Error/)
  })
})
