import { monitorEventLoopDelay } from 'node:perf_hooks'

/**
 * Watches this process's event loop while a test's work runs: its worst stall, and a `/health`
 * probe of the server under test sent again and again meanwhile. `stop()` ends both.
 */
export function watchEventLoop(baseUrl: string): {
  stop(): Promise<{ stallMs: number; healthChecks: number }>
} {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  let healthChecks = 0
  let done = false
  const probe = (async () => {
    while (!done) {
      const health = await fetch(`${baseUrl}/health`)
      await health.arrayBuffer()
      if (health.status === 200) healthChecks++
    }
  })()
  return {
    async stop() {
      done = true
      await probe
      delay.disable()
      return { stallMs: delay.max / 1e6, healthChecks }
    },
  }
}

/** One tp2 POST of these events (payload_data 1-0-4). */
export function postTp2(baseUrl: string, events: readonly Record<string, string>[]) {
  return fetch(`${baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
      data: events,
    }),
  })
}

/**
 * Counts turns of this process's event loop (a callback that schedules itself with setImmediate
 * after each one) until `stop()`.
 */
export function countTurns(): { turns(): number; stop(): void } {
  let turns = 0
  let counting = true
  const tick = () => {
    turns++
    if (counting) setImmediate(tick)
  }
  setImmediate(tick)
  return {
    turns: () => turns,
    stop: () => {
      counting = false
    },
  }
}

/**
 * A response's body as the chunks it arrived in, for a test that watches the loop while it reads:
 * `arrayBuffer()` copies megabytes into one buffer in one turn, which would count as the server's
 * (this process is the client too). `Buffer.concat` them once the watch is over.
 */
export async function bodyChunks(response: Response): Promise<Buffer[]> {
  const chunks: Buffer[] = []
  if (response.body === null) return chunks
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  return chunks
}

/**
 * Watches this process's event loop (the server runs here) while `work` runs: the longest time
 * between two turns, and the whole time taken.
 */
export async function loopDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; longestTurnMs: number; totalMs: number }> {
  let longestTurnMs = 0
  let counting = true
  let last = performance.now()
  const started = last
  const tick = () => {
    const now = performance.now()
    longestTurnMs = Math.max(longestTurnMs, now - last)
    last = now
    if (counting) setImmediate(tick)
  }
  setImmediate(tick)
  try {
    const result = await work()
    const totalMs = performance.now() - started
    // One more turn: a stall at the very end of the work shows only once the loop turns again.
    await new Promise((turned) => setImmediate(turned))
    return { result, longestTurnMs, totalMs }
  } finally {
    counting = false
  }
}
