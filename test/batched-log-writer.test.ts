import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  batchedLogWriter,
  LOG_BATCH_BYTES,
  LOG_WAITING_BYTES,
} from '../src/http/batched-log-writer.js'
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
    const lines = Math.ceil(LOG_BATCH_BYTES / line.length)
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

  it('never waits for a reader that takes nothing: lines wait, then the overflow is dropped and counted', async () => {
    // The child fills its stdout pipe, which this process does not read until the child says it
    // has written everything: a writer that waited for the reader would never get there.
    const lines = Math.ceil((4 * LOG_WAITING_BYTES) / 200)
    const script = `
process.stdout // as in a server: the pipe is made non-blocking
const { batchedLogWriter } = await import(process.argv[1])
const writer = batchedLogWriter(1)
for (let i = 0; i < ${lines}; i++) writer.write(JSON.stringify({ msg: 'line ' + i, pad: 'p'.repeat(170) }) + '\\n')
process.stderr.write('wrote\\n')
// Once read, the child writes what waits (and the count of what it dropped) until nothing waits.
const drain = () => {
  writer.flush()
  if (writer.waitingBytes() > 0) setTimeout(drain, 5)
  else process.exit(0)
}
process.stdin.once('data', drain)`
    const writer = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, '--', WRITER_MODULE],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    )
    writer.stdout.pause()
    let stderr = ''
    writer.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    await pollUntil(
      async () => stderr,
      (text) => text.includes('wrote'),
      'the child to finish writing while its pipe is not read',
      20_000,
    )
    let stdout = ''
    writer.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    writer.stdout.resume()
    const exited = new Promise<number | null>((resolve) => writer.once('exit', resolve))
    writer.stdin.write('go')
    expect(await exited).toBe(0)
    const written = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { msg: string })
    const kept = written.filter((line) => line.msg.startsWith('line '))
    const notices = written.filter((line) => line.msg.includes('log lines were dropped'))
    const droppedCount = notices.reduce((sum, line) => sum + Number.parseInt(line.msg, 10), 0)
    // Some lines waited for the reader and some were dropped; every line is accounted for, in order.
    expect(kept.length).toBeGreaterThan(0)
    expect(droppedCount).toBeGreaterThan(0)
    expect(kept.length + droppedCount).toBe(lines)
    const numbers = kept.map((line) => Number(line.msg.slice('line '.length)))
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
  })

  it('writes a line larger than its whole room on its own', () => {
    const { writer, written, close } = fileWriter('huge.log')
    writer.write('{"msg":"before"}\n')
    const huge = `${JSON.stringify({ msg: 'h'.repeat(LOG_WAITING_BYTES + 10) })}\n`
    writer.write(huge)
    writer.write('{"msg":"after"}\n')
    writer.flush()
    expect(written()).toBe(`{"msg":"before"}\n${huge}{"msg":"after"}\n`)
    close()
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
