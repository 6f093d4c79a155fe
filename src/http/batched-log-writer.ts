import sonicBoom from 'sonic-boom'

// A CommonJS module whose export is the class, with itself as its `SonicBoom` property.
const { SonicBoom } = sonicBoom

/** Log lines are written once this many characters of them wait (bytes, for ASCII)… */
export const LOG_BATCH_CHARS = 4096
/** …or this long after the first of them was made, whichever comes first. */
export const LOG_BATCH_MS = 20

/** What pino writes its lines to. */
export interface LogWriter {
  write(line: string): boolean
  /** Writes what waits, at once (pino calls it with a callback). */
  flush(done?: (error?: Error) => void): void
}

/**
 * JSON log lines for a file descriptor (stdout or stderr), written synchronously in batches: a server logs two lines a
 * request, and a write to a pipe that its reader drains slowly (a container's log driver, a parent
 * process) stalled the request being answered; written one call per line, the log cost a request
 * at 1 connection ~10–20 µs of its ~0.2 ms. Lines wait at most `LOG_BATCH_MS` (on a timer that does
 * not keep the process alive) or until `LOG_BATCH_CHARS` of them wait, and are written at exit,
 * however the process ends but for a kill: at most the last 20 ms of lines can be lost then.
 * Bounded: the writer holds at most one batch. One writer per descriptor, shared by every server
 * of the process, so that their lines stay in order.
 */
export function batchedLogWriter(fd: number): LogWriter {
  const existing = writers.get(fd)
  if (existing !== undefined) return existing
  // Each batch is one write of sonic-boom's (which retries a full pipe and finishes a partial
  // write): the lines are joined here, since its own buffering costs ~0.7 µs a line more.
  const destination = new SonicBoom({ fd, sync: true })
  // The reader went away (a closed pipe): the log stops, as pino's own writer does.
  let broken = false
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') broken = true
  })
  let timer: NodeJS.Timeout | null = null
  /** The lines made and not yet written, joined. */
  let waiting = ''
  const writeWaiting = () => {
    if (timer !== null) clearTimeout(timer)
    timer = null
    if (waiting === '' || broken) return
    const batch = waiting
    waiting = ''
    destination.write(batch)
  }
  const writer: LogWriter = {
    write(line) {
      if (broken) return true
      waiting += line
      if (waiting.length >= LOG_BATCH_CHARS) writeWaiting()
      else if (timer === null) {
        timer = setTimeout(writeWaiting, LOG_BATCH_MS)
        timer.unref()
      }
      return true
    },
    flush(done) {
      writeWaiting()
      done?.()
    },
  }
  process.on('exit', writeWaiting)
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
