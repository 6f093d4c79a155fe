// A design that issue 29's ingest targets point to, measured as a prototype (not Floe): the
// collector's HTTP handling on the main thread, the pipeline and the event store in one worker
// thread (bench/support/worker-store-server.mjs). The twentieth pass ran the pipeline in a worker
// and handed each event back to the main thread's store, which cost more than it saved; here the
// events stay in the worker. Figures as bench/ingest.mjs gives them, against the same bare route,
// with the same page views and the check that every event came out good.
// --texts: the worker also writes each event's JSON text into memory the main thread reads, and the
// main thread keeps where each lies (see the server); --worker-capacity: the worker's own store.
// Usage: node bench/worker-store.mjs [--mode get|post] [--rounds 3] [--duration 5] [--connections 10] [--max-pending 200]
//   [--texts] [--worker-capacity 100000]
import { spawn } from 'node:child_process'
import { alternate, option } from './support/load.mjs'
import { freePort, serverNodeFlags, startBaseline } from './support/processes.mjs'
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
      allGood: counts.bad === 0 && subject.non2xx === 0 && subject.errors === 0,
    }),
  )
} finally {
  server.kill()
  await baselineServer.stop()
}
