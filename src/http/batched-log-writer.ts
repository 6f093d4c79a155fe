import { writeSync } from 'node:fs'

/** Log lines are written once this many bytes of them wait… */
export const LOG_BATCH_BYTES = 16 * 1024
/** …or this long after the first of them was made, whichever comes first. */
export const LOG_BATCH_MS = 20
/**
 * The most bytes that may wait: while the log's reader takes nothing (a full pipe), lines wait here
 * and are written once it reads again; past this, new lines are dropped and counted.
 */
export const LOG_WAITING_BYTES = 256 * 1024
/** How long a line too large to wait, or the last lines at exit, may hold the thread on a full pipe. */
const DIRECT_WRITE_BUDGET_MS = 100

/** What pino writes its lines to. */
export interface LogWriter {
  write(line: string): boolean
  /** Writes what waits, at once (pino calls it with a callback). */
  flush(done?: (error?: Error) => void): void
  /** Bytes of lines (and of a note of dropped lines) not yet written. */
  waitingBytes(): number
}

/** Sleeps the thread for `ms` (a retry on a full pipe, within a bounded budget). */
const sleepMs = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * JSON log lines for a file descriptor (stdout or stderr), written synchronously in batches: a server
 * logs two lines a request and the event log a line an event, so a write per line cost a request
 * ~10–20 µs, and stalled it whenever the log's reader (a pipe, a container's log driver) was slow.
 *
 * The lines are encoded straight into one reused buffer and written from it, a batch per write: no
 * string of the batch is built. The event log (a line per event) cost the server ~4.6 µs of CPU per
 * GET event through sonic-boom and a joined string; this way the server spends ~4% less per GET and
 * tp2 event (docs/benchmark-passes.md, sixteenth pass).
 * A batch waits at most `LOG_BATCH_MS` (on a timer that does not keep the process alive) or until
 * `LOG_BATCH_BYTES` wait, and what waits is written at exit, however the process ends but for a kill.
 *
 * Never blocks on a slow reader: when the descriptor takes only part of a batch (a full pipe), the
 * rest waits and is tried again on the timer; past `LOG_WAITING_BYTES` waiting, new lines are dropped,
 * and a line saying how many is written once the reader takes lines again. One writer per
 * descriptor, shared by every server of the process, so that their lines stay in order.
 */
export function batchedLogWriter(fd: number): LogWriter {
  const existing = writers.get(fd)
  if (existing !== undefined) return existing
  const waiting = Buffer.allocUnsafe(LOG_WAITING_BYTES)
  /** Bytes of `waiting` not yet written. */
  let used = 0
  /** Lines dropped since the last written batch, for lack of room. */
  let dropped = 0
  /** The descriptor failed (its reader went away: EPIPE); the log stops, as pino's own writer does. */
  let broken = false
  let timer: NodeJS.Timeout | null = null

  const schedule = () => {
    if (timer !== null) return
    timer = setTimeout(writeWaiting, LOG_BATCH_MS)
    timer.unref()
  }

  /** Writes bytes from `buffer` until written or the descriptor is full; the count written. */
  const writeSome = (buffer: Buffer, from: number, to: number): number => {
    let at = from
    while (at < to && !broken) {
      try {
        at += writeSync(fd, buffer, at, to - at)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break
        broken = true
      }
    }
    return at - from
  }

  /** Writes `buffer` up to `length`, retrying a full descriptor within the budget; the bytes written. */
  const writeWithin = (buffer: Buffer, length: number): number => {
    const deadline = Date.now() + DIRECT_WRITE_BUDGET_MS
    let at = writeSome(buffer, 0, length)
    while (at < length && !broken && Date.now() < deadline) {
      sleepMs(1)
      at += writeSome(buffer, at, length)
    }
    return at
  }

  const noteDropped = () => {
    if (dropped === 0 || broken) return
    const line = `${JSON.stringify({
      level: 40,
      time: Date.now(),
      msg: `${dropped} log lines were dropped: the log's reader did not keep up`,
    })}\n`
    if (used + Buffer.byteLength(line) > waiting.length) return
    dropped = 0
    used += waiting.write(line, used, 'utf8')
  }

  function writeWaiting(): void {
    if (timer !== null) clearTimeout(timer)
    timer = null
    if (broken) {
      used = 0
      return
    }
    const written = writeSome(waiting, 0, used)
    if (written > 0) {
      waiting.copyWithin(0, written, used)
      used -= written
      noteDropped()
    }
    if (used > 0) schedule()
  }

  /**
   * A line that may not fit in the room left, even once what waits was written: counted exactly,
   * then kept, written on its own when it is larger than the whole room (a huge error, within the
   * budget), or dropped.
   */
  function keepLong(line: string): void {
    const bytes = Buffer.from(line, 'utf8')
    if (used + bytes.length <= waiting.length) used += bytes.copy(waiting, used)
    else if (used > 0 || bytes.length <= waiting.length) dropped++
    else {
      const written = writeWithin(bytes, bytes.length)
      if (written === 0) dropped++
      // Cut short: the next line still starts a line of its own.
      else if (written < bytes.length) used += waiting.write('\n', used, 'utf8')
    }
    if (used > 0) schedule()
  }

  /** Whether `line` surely fits in the room left: three bytes a UTF-16 unit at most. */
  const surelyFits = (line: string) => used + line.length * 3 <= waiting.length

  const writer: LogWriter = {
    write(line) {
      if (broken) return true
      if (!surelyFits(line)) writeWaiting()
      if (!surelyFits(line)) {
        keepLong(line)
        return true
      }
      used += waiting.write(line, used, 'utf8')
      if (used >= LOG_BATCH_BYTES) writeWaiting()
      else schedule()
      return true
    },
    flush(done) {
      writeWaiting()
      done?.()
    },
    waitingBytes: () => (broken ? 0 : used + (dropped > 0 ? 1 : 0)),
  }
  // At exit, what waits is written, and then the count of lines dropped since the last note, within
  // the budget (a full pipe may not take it all).
  process.on('exit', () => {
    if (timer !== null) clearTimeout(timer)
    if (used > 0 && !broken) used -= writeWithin(waiting, used)
    if (used === 0) {
      noteDropped()
      if (used > 0 && !broken) writeWithin(waiting, used)
    }
  })
  writers.set(fd, writer)
  return writer
}

const writers = new Map<number, LogWriter>()

/**
 * Writes every waiting log line at once: before the process writes anything else to the same
 * descriptor (the start-up banner), so that its lines come out in the order they were made.
 */
export function flushLogs(): void {
  for (const writer of writers.values()) writer.flush()
}
