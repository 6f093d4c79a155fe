// Ingest against the bare route, one Floe process after another: how much the figure depends on
// the server process itself. `ingest.mjs` keeps one Floe process for all its rounds (as a user runs
// one server), so its rounds' spread shows the machine's drift but not how one process differs from
// the next (forty-first pass, docs/benchmark-passes.md). Here each round starts a new `floe start`,
// fills its store under the load for --fill seconds (to the steady state the full run measures),
// then measures it and the bare route in turn. Per process: the ratio, and the CPU its main thread
// and its other threads (V8's helpers) spent per request, from /proc (Linux only).
// Usage: node bench/ingest-processes.mjs [--mode get|post] [--processes 6] [--fill 10] [--duration 8] [--connections 10]
import { readdirSync, readFileSync } from 'node:fs'
import { load, option } from './support/load.mjs'
import { accessToken, deployToDev, startBaseline, startFloe } from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH, BENCH_PRODUCT } from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const PROCESSES = option('processes', 6)
const FILL = option('fill', 10)
const DURATION = option('duration', 8)
const CONNECTIONS = option('connections', 10)
const perRequest = mode === 'get' ? 1 : BENCH_BATCH

/** CPU milliseconds of the process's main thread (its own id) and of its other threads together. */
function threadCpu(pid) {
  let main = 0
  let others = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')
    } catch {
      continue // a thread that ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const millis = (Number(fields[11]) + Number(fields[12])) * 10
    if (Number(task) === pid) main += millis
    else others += millis
  }
  return { main, others }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
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
      const before = threadCpu(floe.pid)
      const subject = await load({ ...request, duration: DURATION, connections: CONNECTIONS })
      const after = threadCpu(floe.pid)
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
