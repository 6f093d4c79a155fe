// What keeping events costs the garbage collector: `floe start` under the ingest load with V8's
// --trace-gc-nvp, measured once its store is full (or once --fill seconds of load have run). Per
// event: the main thread's pauses in the young generation's collections (scavenges) and in full
// collections, the bytes the young generation promoted to the old one, and the server's CPU time.
// The promoted bytes move less with the machine's other work than a throughput does: they say
// how much of each stored event the collector copies and then traces (docs/benchmark-passes.md, seventeenth
// pass). --max-events is passed to the server (a small store keeps few events past the young generation).
// Usage: node bench/gc-cost.mjs [--mode get|post] [--fill 12] [--seconds 10] [--connections 10] [--max-events N]
import { readFileSync } from 'node:fs'
import { load, option } from './support/load.mjs'
import { accessToken, cpuMillis, deployToDev, startFloe } from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH, BENCH_PRODUCT } from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const FILL_SECONDS = option('fill', 12)
const SECONDS = option('seconds', 10)
const CONNECTIONS = option('connections', 10)
const maxEvents = option('max-events', null)
const perRequest = mode === 'get' ? 1 : BENCH_BATCH

const server = await startFloe({
  nodeFlags: ['--trace-gc-nvp'],
  args: maxEvents === null ? [] : ['--max-events', String(maxEvents)],
})
try {
  await deployToDev(server.url, await accessToken(server.url), BENCH_PRODUCT)
  const request = benchIngestRequest(mode, server.url)
  await load({ ...request, duration: FILL_SECONDS, connections: CONNECTIONS })
  const traceBefore = readFileSync(server.logFile, 'utf8').length
  const cpuBefore = cpuMillis(server.pid)
  const result = await load({ ...request, duration: SECONDS, connections: CONNECTIONS })
  const cpu = cpuMillis(server.pid) - cpuBefore
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} answers not 2xx, ${result.errors} errors`)
  const events = result.requests * perRequest
  // One line per collection: `… pause=<ms> … gc=s|mc|… … promoted=<bytes> …`.
  const collections = { scavenge: [], full: [] }
  for (const line of readFileSync(server.logFile, 'utf8').slice(traceBefore).split('\n')) {
    const kind = /\bgc=(\w+)/.exec(line)?.[1]
    const pause = /\bpause=([\d.]+)/.exec(line)?.[1]
    if (kind === undefined || pause === undefined) continue
    const promoted = Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0)
    ;(kind === 's' ? collections.scavenge : collections.full).push({
      pause: Number(pause),
      promoted,
    })
  }
  const perEvent = (list) => ({
    count: list.length,
    pauseMicrosPerEvent: Number(
      ((list.reduce((sum, c) => sum + c.pause, 0) * 1000) / events).toFixed(2),
    ),
    promotedBytesPerEvent: Math.round(list.reduce((sum, c) => sum + c.promoted, 0) / events),
  })
  console.log(
    JSON.stringify({
      scenario: 'gc-cost',
      mode,
      maxEvents,
      fillSeconds: FILL_SECONDS,
      seconds: SECONDS,
      events,
      eventsPerSecond: Math.round(events / SECONDS),
      cpuMicrosPerEvent: Number(((cpu * 1000) / events).toFixed(1)),
      scavenges: perEvent(collections.scavenge),
      fullCollections: perEvent(collections.full),
    }),
  )
} finally {
  await server.stop()
}
