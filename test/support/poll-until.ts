/**
 * Reads `read()` until `done` holds for what it gave, yielding to the event loop for 5 ms between
 * reads (so that I/O, worker threads and timers can progress), and fails after `deadlineMs` naming
 * what it waited for. Returns the last value read.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  deadlineMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`waited ${deadlineMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * The deadline of a `vi.waitFor` (its own default is 1 s: a thousand events took longer to store
 * on a slow machine with both cores busy, and the wait failed where nothing was wrong).
 */
export const WAIT_DEADLINE = { timeout: 15_000, interval: 20 }
