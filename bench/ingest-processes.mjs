// Ingest against the bare route, one Floe process after another: how much the figure depends on
// the server process itself. `ingest.mjs` keeps one Floe process for all its rounds (as a user runs
// one server), so its rounds' spread shows the machine's drift but not how one process differs from
// the next (forty-first pass, docs/benchmark-passes.md). Here each round starts a new `floe start`,
// fills its store under the load for --fill seconds (to the steady state the full run measures),
// then measures it and the bare route in turn. Per process: the ratio, and the CPU its main thread
// and its other threads (V8's helpers) spent per request, from /proc (Linux only).
// Usage: node bench/ingest-processes.mjs [--mode get|post] [--processes 6] [--fill 10] [--duration 8] [--connections 10]
import { load, median, option } from './support/load.mjs'
import {
  accessToken,
  deployToDev,
  startBaseline,
  startFloe,
  threadCpuMillis,
} from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH, BENCH_PRODUCT } from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const PROCESSES = option('processes', 6)
const FILL = option('fill', 10)
const DURATION = option('duration', 8)
const CONNECTIONS = option('connections', 10)
const perRequest = mode === 'get' ? 1 : BENCH_BATCH

const round = (value, digits) => Number(value.toFixed(digits))

const baseline = await startBaseline({})
const rounds = []
try {
  const baselineRequest = benchIngestRequest(mode, baseline.url)
  for (let n = 0; n < PROCESSES; n++) {
    const floe = await startFloe({})
    try {
      await deployToDev(floe.url, await accessToken(floe.url), BENCH_PRODUCT)
      const request = benchIngestRequest(mode, floe.url)
      await load({ ...request, duration: FILL, connections: CONNECTIONS })
      const before = threadCpuMillis(floe.pid)
      const subject = await load({ ...request, duration: DURATION, connections: CONNECTIONS })
      const after = threadCpuMillis(floe.pid)
      const bare = await load({ ...baselineRequest, duration: DURATION, connections: CONNECTIONS })
      if (subject.non2xx > 0 || subject.errors > 0)
        throw new Error(`${subject.non2xx} answers not 2xx, ${subject.errors} errors`)
      const micros = (millis) => round((millis * 1000) / subject.requests, 1)
      rounds.push({
        ratio: round((subject.requestsPerSecond * perRequest) / bare.requestsPerSecond, 3),
        eventsPerSecond: Math.round(subject.requestsPerSecond * perRequest),
        baselineRequestsPerSecond: Math.round(bare.requestsPerSecond),
        mainThreadMicrosPerRequest: micros(after.main - before.main),
        otherThreadsMicrosPerRequest: micros(after.others - before.others),
      })
    } finally {
      await floe.stop()
    }
  }
} finally {
  await baseline.stop()
}
const ratios = rounds.map((r) => r.ratio)
console.log(
  JSON.stringify({
    scenario: 'ingest-processes',
    mode,
    processes: PROCESSES,
    fillSeconds: FILL,
    durationSeconds: DURATION,
    ratio: median(ratios),
    ratioSpread: { min: Math.min(...ratios), max: Math.max(...ratios) },
    rounds,
  }),
)
