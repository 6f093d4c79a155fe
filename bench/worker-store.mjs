// A design that issue 29's ingest targets point to, measured as a prototype (not Floe): the
// collector's HTTP handling on the main thread, the pipeline and the event store in one worker
// thread (bench/support/worker-store-server.mjs). The twentieth pass ran the pipeline in a worker
// and handed each event back to the main thread's store, which cost more than it saved; here the
// events stay in the worker. Figures as bench/ingest.mjs gives them, against the same bare route,
// with the same page views and the check that every event came out good.
// After the rounds, one more round of the prototype alone, with the CPU each of its threads used
// per request (the main thread, the pipeline's worker, V8's helper threads) and the load
// generator's (this process, autocannon): where the two cores went.
// --texts: the worker also writes each event's JSON text into memory the main thread reads, and the
// main thread keeps where each lies (see the server); --worker-capacity: the worker's own store.
// Usage: node bench/worker-store.mjs [--mode get|post] [--rounds 3] [--duration 5] [--connections 10] [--max-pending 200]
//   [--texts] [--worker-capacity 100000]
import { spawn } from 'node:child_process'
import { alternate, load, option } from './support/load.mjs'
import {
  cpuMillisByThread,
  freePort,
  serverNodeFlags,
  startBaseline,
} from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH } from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const ROUNDS = option('rounds', 3)
const DURATION = option('duration', 5)
const CONNECTIONS = option('connections', 10)
const perRequest = mode === 'get' ? 1 : BENCH_BATCH

const port = await freePort()
const server = spawn(
  process.execPath,
  [
    ...serverNodeFlags(),
    new URL('./support/worker-store-server.mjs', import.meta.url).pathname,
    '--port',
    String(port),
    '--max-pending',
    String(option('max-pending', 200)),
    '--worker-capacity',
    String(option('worker-capacity', 100_000)),
    ...(process.argv.includes('--texts') ? ['--texts'] : []),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
await new Promise((resolve, reject) => {
  server.stdout.once('data', resolve)
  server.once('exit', (code) => reject(new Error(`the prototype server exited with ${code}`)))
})
const url = `http://127.0.0.1:${port}`
const baselineServer = await startBaseline({ logLevel: process.env.BENCH_LOG_LEVEL ?? 'info' })
try {
  const { subject, baseline, ratios } = await alternate({
    subject: benchIngestRequest(mode, url),
    baseline: benchIngestRequest(mode, baselineServer.url),
    rounds: ROUNDS,
    duration: DURATION,
    connections: CONNECTIONS,
  })
  const threads = await threadSplit(benchIngestRequest(mode, url))
  const { received, counts, textsPlaced } = await (await fetch(`${url}/counts`)).json()
  const ratio = (subject.requestsPerSecond * perRequest) / baseline.requestsPerSecond
  console.log(
    JSON.stringify({
      scenario: 'worker-store',
      mode,
      texts: process.argv.includes('--texts'),
      rounds: ROUNDS,
      durationSeconds: DURATION,
      eventsPerSecond: Math.round(subject.requestsPerSecond * perRequest),
      p50Ms: subject.p50Ms,
      p99Ms: subject.p99Ms,
      baselineRequestsPerSecond: Math.round(baseline.requestsPerSecond),
      ratio: Number(ratio.toFixed(3)),
      ratioSpread: ratios.map((each) => Number((each * perRequest).toFixed(3))),
      target: mode === 'get' ? 0.7 : 3,
      requestsHandedOver: received,
      storedAtEnd: counts.good,
      // With --texts: the good events whose texts the worker wrote and this thread indexed.
      textsPlaced,
      threadMicrosPerRequest: threads.micros,
      coresBusy: threads.coresBusy,
      allGood:
        counts.bad === 0 &&
        subject.non2xx === 0 &&
        subject.errors === 0 &&
        threads.non2xx === 0 &&
        threads.errors === 0,
    }),
  )
} finally {
  server.kill()
  await baselineServer.stop()
}

/**
 * One round of the prototype alone: CPU µs per request of its main thread, of its busiest other
 * thread (the pipeline's worker), of its other threads together (V8's helpers, libuv's pool), and of
 * this process (the load generator); and how many of the machine's cores they kept busy together.
 */
async function threadSplit(request) {
  const before = cpuMillisByThread(server.pid)
  const loadBefore = process.cpuUsage()
  const from = performance.now()
  const result = await load({ ...request, duration: DURATION, connections: CONNECTIONS })
  const elapsed = performance.now() - from
  const loadUsage = process.cpuUsage(loadBefore)
  const used = [...cpuMillisByThread(server.pid)].map(([thread, millis]) => ({
    thread,
    millis: millis - (before.get(thread) ?? 0),
  }))
  const main = used.find((each) => each.thread === server.pid)?.millis ?? 0
  const others = used.filter((each) => each.thread !== server.pid).map((each) => each.millis)
  const worker = Math.max(0, ...others)
  const rest = others.reduce((sum, millis) => sum + millis, 0) - worker
  const loadGenerator = (loadUsage.user + loadUsage.system) / 1000
  const micros = (millis) => Number(((millis * 1000) / result.requests).toFixed(1))
  return {
    micros: {
      main: micros(main),
      pipelineWorker: micros(worker),
      otherThreads: micros(rest),
      loadGenerator: micros(loadGenerator),
    },
    coresBusy: Number(((main + worker + rest + loadGenerator) / elapsed).toFixed(2)),
    non2xx: result.non2xx,
    errors: result.errors,
  }
}
