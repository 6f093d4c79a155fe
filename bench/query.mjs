// Query: POST /local/good with a schema filter and a limit of 100 over --events stored events (one in
// ten matches), p50 latency over HTTP, against a linear scan of the same events in the same process
// (filter the whole list by schema, take 100) served by a bare Fastify route; the same comparison
// in-process (the store's lookup against the scan); and the heap the stored events take, per event.
// The floor (the same answer pre-serialized by a bare route) bounds the ratio any server could reach.
// Usage: node bench/query.mjs [--events 100000] [--duration 10] [--rounds 5] [--connections 1] [--scattered] [--in-process | --unremembered] [--warmup 1]
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { inspectionThreadOption, interleave, option } from './support/load.mjs'

const EVENTS = option('events', 100_000)
const DURATION = option('duration', 10)
const ROUNDS = option('rounds', 5)
const CONNECTIONS = option('connections', 1)
const harnessPath = new URL('./query-harness.mjs', import.meta.url).pathname
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '')
const harness = spawn(
  process.execPath,
  [
    '--expose-gc',
    '--max-old-space-size=8192',
    ...nodeFlags,
    harnessPath,
    '--events',
    String(EVENTS),
    ...(process.argv.includes('--scattered') ? ['--scattered'] : []),
    ...inspectionThreadOption().args,
    ...(process.argv.includes('--unremembered') ? ['--unremembered'] : []),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
)
const exited = new Promise((resolve) => harness.once('exit', resolve))
try {
  const ready = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: harness.stdout })
    lines.on('line', (line) => {
      if (line.startsWith('{"ready"')) resolve(JSON.parse(line))
    })
    void exited.then((code) => reject(new Error(`the query harness exited with ${code}`)))
  })
  const body = JSON.stringify({ schema: ready.schema, limit: ready.limit })
  const request = (url) => ({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  })
  // The four in turn, round after round: the scan (baseline), Floe, and the two floors.
  const { subject, baseline, floor, floorCopy } = await interleave({
    targets: {
      baseline: request(`${ready.baselineUrl}/scan`),
      subject: request(`${ready.subjectUrl}/local/good`),
      floor: request(`${ready.baselineUrl}/floor`),
      floorCopy: request(`${ready.baselineUrl}/floor-copy`),
    },
    rounds: ROUNDS,
    duration: DURATION,
    connections: CONNECTIONS,
    warmup: 1,
  })
  // Round by round, the floor's p50 over Floe's measured just before it.
  const floorRatios = subject.runs.map((run, i) => floor.runs[i].p50Ms / run.p50Ms)
  const speedup = baseline.p50Ms / subject.p50Ms
  const lookupSpeedup = ready.scanP50Ms / ready.lookupP50Ms
  console.log(
    JSON.stringify({
      scenario: 'query',
      events: ready.events,
      scattered: ready.scattered,
      // Event inspection in a thread of its own: no scan baseline (it reads no events), floors only.
      thread: ready.thread,
      // With --unremembered: every answer asked of the inspection thread, none remembered.
      unremembered: ready.unremembered,
      stored: ready.stored,
      limit: ready.limit,
      connections: CONNECTIONS,
      p50Ms: subject.p50Ms,
      p99Ms: subject.p99Ms,
      requestsPerSecond: Math.round(subject.requestsPerSecond),
      baselineP50Ms: baseline.p50Ms,
      baselineRequestsPerSecond: Math.round(baseline.requestsPerSecond),
      speedup,
      meanMs: subject.meanMs,
      baselineMeanMs: baseline.meanMs,
      meanSpeedup: baseline.meanMs / subject.meanMs,
      answerBytes: ready.answerBytes,
      floorP50Ms: floor.p50Ms,
      // The floor's p50 over Floe's: 1 means Floe answers as fast as a route that only sends the bytes.
      floorRatio: floor.p50Ms / subject.p50Ms,
      floorRatioSpread: { min: Math.min(...floorRatios), max: Math.max(...floorRatios) },
      floorMeanMs: floor.meanMs,
      // A bare route that joins the events' texts into one buffer at each request, as the subject does.
      floorCopyP50Ms: floorCopy.p50Ms,
      floorCopyRatio: floor.p50Ms / floorCopy.p50Ms,
      floorSpeedup: baseline.meanMs / floor.meanMs,
      throughputSpeedup: subject.requestsPerSecond / baseline.requestsPerSecond,
      lookupP50Ms: ready.lookupP50Ms,
      scanP50Ms: ready.scanP50Ms,
      lookupSpeedup,
      sameAnswer: ready.sameAnswer,
      bytesPerEvent: ready.bytesPerEvent === null ? null : Math.round(ready.bytesPerEvent),
      heapDeltaMb: ready.heapDeltaMb === null ? null : Number(ready.heapDeltaMb.toFixed(1)),
      target: { speedup: 20, bytesPerEvent: 4096 },
      met: speedup >= 20 && ready.bytesPerEvent <= 4096,
      allOk:
        subject.non2xx === 0 &&
        subject.errors === 0 &&
        baseline.non2xx === 0 &&
        floor.non2xx === 0 &&
        floorCopy.non2xx === 0,
      // The scan baseline reads no events with the thread (all but --in-process): what compares with it means nothing then.
      ...(ready.thread
        ? {
            baselineP50Ms: null,
            speedup: null,
            meanSpeedup: null,
            floorSpeedup: null,
            throughputSpeedup: null,
            lookupSpeedup: null,
            met: null,
          }
        : {}),
    }),
  )
} finally {
  harness.kill('SIGTERM')
  await exited
}
