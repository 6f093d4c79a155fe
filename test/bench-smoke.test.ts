import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, it } from 'vitest'

/**
 * Runs `node bench/<script> --<name> <value>…` (an option given `true` is a bare flag) and reads its
 * report, the last line of its output.
 */
const runBench = (script: string, options: Record<string, string | number | true> = {}) => {
  const args = Object.entries(options).flatMap(([name, value]) =>
    value === true ? [`--${name}`] : [`--${name}`, String(value)],
  )
  const output = execFileSync(process.execPath, [`bench/${script}`, ...args], { encoding: 'utf8' })
  return JSON.parse(output.trim().split('\n').pop()!)
}

/** A load run at the smallest size that still measures: one round of a second, two connections. */
const TINY_LOAD = { warmup: 0.25, duration: 1, rounds: 1, connections: 2 } as const

it('the compatibility benchmark runs at a tiny size and reports its figures', () => {
  const report = runBench('compatibility.mjs', { limit: 5 })
  expect(report).toMatchObject({ scenario: 'compatibility', pairs: 5 })
  expect(report.decidedShare).toBeGreaterThan(0)
  expect(report.decidedShare).toBeLessThanOrEqual(1)
  expect(report.medianMs).toBeGreaterThan(0)
  expect(report.baselineMedianMs).toBeGreaterThan(0)
})

it('the memory flood benchmark runs at a tiny size, keeping exactly the newest events', () => {
  const report = runBench('memory-flood.mjs', { events: 3000, 'max-events': 500, batch: 50 })
  expect(report).toMatchObject({
    scenario: 'memory-flood',
    events: 3000,
    maxEvents: 500,
    countsCorrect: true,
    evictionCorrect: true,
  })
  expect(report.rssEndMb).toBeGreaterThan(0)
}, 120_000)

it.each(['get', 'post'])(
  'the ingest benchmark (%s) runs at a tiny size, with every event good, and reports events/s against its baseline',
  (mode) => {
    const report = runBench('ingest.mjs', { ...TINY_LOAD, mode })
    expect(report).toMatchObject({
      scenario: `ingest-${mode}`,
      eventsPerRequest: mode === 'get' ? 1 : 10,
      allGood: true,
      target: mode === 'get' ? 0.7 : 3,
    })
    expect(report.eventsPerSecond).toBeGreaterThan(0)
    expect(report.baselineRequestsPerSecond).toBeGreaterThan(0)
    expect(report.ratio).toBeCloseTo(
      (report.requestsPerSecond * report.eventsPerRequest) / report.baselineRequestsPerSecond,
      1,
    )
    expect(report.met).toBe(report.ratio >= report.target)
    // The events of the load are still stored, and the server's memory was sampled under it.
    expect(report.storedAtEnd).toBeGreaterThan(0)
    expect(report.peakRssMb).toBeGreaterThan(30)
  },
  120_000,
)

it('the tp2 ingest benchmark with entities of its own in each event runs at a tiny size, every event good', () => {
  const report = runBench('ingest.mjs', { ...TINY_LOAD, mode: 'post', 'distinct-entities': true })
  expect(report).toMatchObject({
    scenario: 'ingest-post-distinct',
    eventsPerRequest: 10,
    allGood: true,
  })
  expect(report.eventsPerSecond).toBeGreaterThan(0)
}, 120_000)

it("the ingest benchmark over server processes runs at a tiny size: a ratio and the threads' CPU per process", () => {
  const report = runBench('ingest-processes.mjs', {
    processes: 2,
    fill: 0.25,
    duration: 1,
    connections: 2,
  })
  expect(report).toMatchObject({ scenario: 'ingest-processes', mode: 'get', processes: 2 })
  expect(report.rounds).toHaveLength(2)
  for (const round of report.rounds as Record<string, number>[]) {
    expect(round.ratio).toBeGreaterThan(0)
    expect(round.mainThreadMicrosPerRequest).toBeGreaterThan(0)
  }
  expect(report.ratioSpread.min).toBeLessThanOrEqual(report.ratio)
  expect(report.ratioSpread.max).toBeGreaterThanOrEqual(report.ratio)
}, 120_000)

it("the server profile runs at a tiny size: each server's CPU per request, by part", () => {
  const report = runBench('server-profile.mjs', {
    warmup: 0.25,
    duration: 1,
    top: 5,
    callers: 'writev',
  })
  expect(report).toMatchObject({ scenario: 'server-profile', mode: 'get' })
  expect(report.busyMicrosPerRequest.floe).toBeGreaterThan(0)
  expect(report.busyMicrosPerRequest.bare).toBeGreaterThan(0)
  const part = (name: string) =>
    (report.parts as [string, number, number][]).find(([each]) => each === name)
  // Only Floe runs the pipeline; both write their answers.
  expect(part('the pipeline')?.[1]).toBeGreaterThan(0)
  expect(part('the pipeline')?.[2]).toBe(0)
  expect(report.floeFunctions).toHaveLength(5)
  // The call paths of the socket's write, three frames up: through Node's stream code in both.
  for (const callers of [report.floeCallers, report.bareCallers] as [string, number][][]) {
    expect(callers.length).toBeGreaterThan(0)
    expect(callers[0]?.[0]).toMatch(/^writevGeneric node:internal\/stream_base_commons:\d+ < /)
  }
}, 120_000)

it('the start-up benchmark runs a round: first start, restart and idle memory, against a bare server', () => {
  const report = runBench('startup.mjs', { rounds: 1 })
  expect(report).toMatchObject({ scenario: 'startup', rounds: 1 })
  for (const figure of [
    'firstStartMs',
    'restartMs',
    'firstStartIdleRssMb',
    'restartIdleRssMb',
    'baselineStartMs',
    'baselineIdleRssMb',
  ]) {
    expect(report[figure].median, figure).toBeGreaterThan(0)
    expect(report[figure].min, figure).toBeLessThanOrEqual(report[figure].max)
  }
}, 120_000)

it('the pipeline profile runs at a tiny size, and its parts add up to the time per event', () => {
  const report = runBench('pipeline-profile.mjs', { events: 2000, top: 5 })
  expect(report).toMatchObject({ scenario: 'pipeline-profile', mode: 'get' })
  expect(report.microsPerEvent).toBeGreaterThan(0)
  const parts = (report.parts as { microsPerEvent: number }[]).reduce(
    (sum, part) => sum + part.microsPerEvent,
    0,
  )
  expect(parts).toBeCloseTo(report.microsPerEvent, 0)
  expect(report.functions).toHaveLength(5)
}, 120_000)

it('the scaling benchmark runs at two tiny sizes on both stores, each against the smallest, and keeps its run with a chart', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'floe-scaling-'))
  const report = runBench('scaling.mjs', {
    sizes: '500,1000',
    duration: 1,
    queries: 3,
    'results-dir': resultsDir,
  })
  // The run is kept as JSON beside its chart, one line per store over five panels.
  const kept = readdirSync(resultsDir).filter((name) => name.endsWith('.json'))
  expect(kept).toHaveLength(1)
  expect(JSON.parse(readFileSync(path.join(resultsDir, kept[0]!), 'utf8')).rows).toEqual(
    report.rows,
  )
  const chart = readFileSync(path.join(resultsDir, 'scaling.svg'), 'utf8')
  expect(chart.startsWith('<svg')).toBe(true)
  expect(chart.match(/<polyline/g)).toHaveLength(10)
  expect(chart.match(/<circle/g)).toHaveLength(20)
  expect(report.rows.map((r: { store: string; size: number }) => [r.store, r.size])).toEqual([
    ['memory', 500],
    ['memory', 1000],
    ['postgres', 500],
    ['postgres', 1000],
  ])
  for (const row of report.rows) {
    expect(row.ingestEventsPerSecond).toBeGreaterThan(0)
    expect(row.indexedQueryP50Ms).toBeGreaterThan(0)
    expect(row.filteredQueryP50Ms).toBeGreaterThan(0)
    expect(row.scanQueryP50Ms).toBeGreaterThan(0)
  }
  expect(report.rows[0].relativeToSmallest).toEqual({
    ingest: 1,
    indexedQuery: 1,
    filteredQuery: 1,
    scanQuery: 1,
  })
}, 180_000)

it('the query benchmark runs at a tiny size, in process: the indexed answer is the linear scan’s, and memory per event is reported', () => {
  const report = runBench('query.mjs', {
    warmup: 0.25,
    events: 600,
    duration: 1,
    rounds: 1,
    'in-process': true,
  })
  expect(report).toMatchObject({
    scenario: 'query',
    thread: false,
    events: 600,
    stored: 600,
    limit: 100,
    sameAnswer: true,
    allOk: true,
  })
  expect(report.bytesPerEvent).toBeGreaterThan(0)
  expect(report.lookupP50Ms).toBeGreaterThan(0)
  expect(report.scanP50Ms).toBeGreaterThan(0)
  expect(report.baselineRequestsPerSecond).toBeGreaterThan(0)
  // The floor serves the subject's own answer pre-serialized: its bytes, and the ratio it bounds.
  expect(report.answerBytes).toBeGreaterThan(100 * 1000)
  expect(report.floorMeanMs).toBeGreaterThan(0)
  expect(report.floorSpeedup).toBeCloseTo(report.baselineMeanMs / report.floorMeanMs, 5)
}, 120_000)

it('the query benchmark runs at a tiny size as Floe runs by default: event inspection in its own thread, against the floor', () => {
  const report = runBench('query.mjs', { warmup: 0.25, events: 600, duration: 1, rounds: 1 })
  expect(report).toMatchObject({ scenario: 'query', thread: true, stored: 600, allOk: true })
  expect(report.p50Ms).toBeGreaterThan(0)
  expect(report.floorRatio).toBeGreaterThan(0)
  // The store is in the other thread: nothing compares with a scan of this thread's events.
  expect(report.bytesPerEvent).toBeNull()
  expect(report.speedup).toBeNull()
}, 120_000)

it('the registry benchmark runs at a tiny size: authorized reads and validations all succeed', () => {
  const report = runBench('registry.mjs', TINY_LOAD)
  expect(report).toMatchObject({ scenario: 'registry', allOk: true, target: 0.8 })
  expect(report.requestsPerSecond).toBeGreaterThan(0)
  expect(report.baselineRequestsPerSecond).toBeGreaterThan(0)
  expect(report.validationP50Ms).toBeGreaterThan(0)
  expect(report.validationRequestsPerSecond).toBeGreaterThan(0)
  expect(report.validationRequests).toBeGreaterThan(0)
  expect(report.repeatedValidationP50Ms).toBeGreaterThan(0)
  expect(report.met).toBe(report.ratio >= 0.8)
}, 120_000)

it.each(['get', 'post'])(
  'the pipeline stages diagnostic (%s) runs at a tiny size: every event good and stored, each stage timed',
  (mode) => {
    const report = runBench('pipeline-stages.mjs', { mode, events: 200, rounds: 1, capacity: 1000 })
    expect(report).toMatchObject({
      scenario: 'pipeline-stages',
      mode,
      eventsPerRequest: mode === 'get' ? 1 : 10,
      bad: 0,
    })
    // One warm-up payload is not stored; both collect stages store their events (bounded by the capacity).
    expect(report.stored).toBe(400)
    for (const stage of [
      'readMicros',
      'processMicros',
      'collectMicros',
      'collectInTurnsMicros',
      'stringifyMicros',
    ])
      expect(report[stage]).toBeGreaterThan(0)
    expect(report.eventJsonBytes).toBeGreaterThan(1000)
  },
  120_000,
)

it('the pipeline comparison runs at a tiny size, this build against itself, reporting both and their ratios', () => {
  const report = runBench('pipeline-compare.mjs', {
    other: '.',
    mode: 'get',
    rounds: 3,
    events: 100,
  })
  expect(report).toMatchObject({
    scenario: 'pipeline-compare',
    mode: 'get',
    rounds: 3,
    events: 100,
  })
  for (const figure of [
    'thisProcessMicros',
    'otherProcessMicros',
    'thisCollectMicros',
    'otherCollectMicros',
    'thisCollectInTurnsMicros',
    'otherCollectInTurnsMicros',
  ])
    expect(report[figure]).toBeGreaterThan(0)
  expect(report.processRatio).toBeCloseTo(report.thisProcessMicros / report.otherProcessMicros, 1)
  expect(report.collectRatio).toBeCloseTo(report.thisCollectMicros / report.otherCollectMicros, 1)
}, 120_000)

it('the ingest comparison runs at a tiny size, this build against itself, reporting each server’s CPU time per event', () => {
  const report = runBench('ingest-compare.mjs', {
    other: '.',
    mode: 'get',
    rounds: 2,
    seconds: 1,
    connections: 2,
  })
  expect(report).toMatchObject({ scenario: 'ingest-compare', mode: 'get', rounds: 2, seconds: 1 })
  for (const build of [report.this, report.other]) {
    expect(build.cpuMicrosPerEvent).toBeGreaterThan(0)
    expect(build.eventsPerSecond).toBeGreaterThan(0)
  }
  expect(report.cpuRatio).toBeCloseTo(
    report.this.cpuMicrosPerEvent / report.other.cpuMicrosPerEvent,
    2,
  )
  // One paired ratio a round after the first, and their median.
  expect(report.roundRatios).toHaveLength(1)
  expect(report.medianRoundRatio).toBe(report.roundRatios[0])
  expect(report.medianRoundRatio).toBeGreaterThan(0)
}, 120_000)

it('the garbage-collection cost benchmark runs at a tiny size and reads the collections of its load from the trace', () => {
  const report = runBench('gc-cost.mjs', {
    mode: 'post',
    fill: 1,
    seconds: 2,
    connections: 2,
    'max-events': 500,
  })
  expect(report).toMatchObject({ scenario: 'gc-cost', mode: 'post', maxEvents: 500, seconds: 2 })
  expect(report.events).toBeGreaterThan(0)
  expect(report.cpuMicrosPerEvent).toBeGreaterThan(0)
  // Two seconds of tp2 load allocate far more than a young generation holds: it was collected.
  expect(report.scavenges.count).toBeGreaterThan(0)
  expect(report.scavenges.pauseMicrosPerEvent).toBeGreaterThan(0)
  expect(report.scavenges.promotedBytesPerEvent).toBeGreaterThanOrEqual(0)
}, 120_000)

it('the scenario list benchmark runs at a tiny size: every scenario listed, checked and without warnings, warm and after a restart', () => {
  const report = runBench('scenario-list.mjs', { scenarios: 20, reads: 2 })
  expect(report).toMatchObject({ scenario: 'scenario-list', scenarios: 20, reads: 2, warnings: 0 })
  expect(report.warmP50Ms).toBeGreaterThan(0)
  expect(report.coldMs).toBeGreaterThan(0)
  expect(report.baselineP50Ms).toBeGreaterThan(0)
  expect(report.met).toBe(report.warmP50Ms < 1000)
}, 120_000)

it('the worker-store prototype runs at a tiny size: every event handed over, processed and good', () => {
  const report = runBench('worker-store.mjs', { ...TINY_LOAD, mode: 'post' })
  expect(report).toMatchObject({ scenario: 'worker-store', mode: 'post', allGood: true, target: 3 })
  expect(report.eventsPerSecond).toBeGreaterThan(0)
  expect(report.baselineRequestsPerSecond).toBeGreaterThan(0)
  expect(report.requestsHandedOver).toBeGreaterThan(0)
  // The worker stored every event it was handed, ten a request (short of its store's bound, ~78 000
  // of these events, it keeps them all).
  const handed = report.requestsHandedOver * 10
  if (handed < 50_000) expect(report.storedAtEnd).toBe(handed)
  else expect(report.storedAtEnd).toBeGreaterThan(50_000)
  // Where the cores went in its extra round: the worker ran the pipeline, the load generator loaded.
  expect(report.threadMicrosPerRequest.pipelineWorker).toBeGreaterThan(0)
  expect(report.threadMicrosPerRequest.loadGenerator).toBeGreaterThan(0)
  expect(report.coresBusy).toBeGreaterThan(0)
}, 120_000)

it('the worker-store prototype with texts runs at a tiny size: the worker writes them, its own store stays at its bound', () => {
  const report = runBench('worker-store.mjs', {
    ...TINY_LOAD,
    mode: 'get',
    texts: true,
    'worker-capacity': 300,
  })
  expect(report).toMatchObject({
    scenario: 'worker-store',
    mode: 'get',
    texts: true,
    allGood: true,
  })
  expect(report.eventsPerSecond).toBeGreaterThan(0)
  expect(report.requestsHandedOver).toBeGreaterThan(300)
  expect(report.storedAtEnd).toBe(300)
  // Every event's text was written, and its place kept by the main thread: one a page view.
  expect(report.textsPlaced).toBe(report.requestsHandedOver)
}, 120_000)

it('the worker round-trip benchmark runs at a tiny size, each answer costlier than a number', () => {
  const report = runBench('worker-round-trip.mjs', { asks: 50, bytes: 1000000 })
  expect(report).toMatchObject({ scenario: 'worker-round-trip', asks: 50, bytes: 1_000_000 })
  expect(report.numberP50Micros).toBeGreaterThan(0)
  // A megabyte cloned costs more than a number's round trip on any machine.
  expect(report.cloneP50Micros).toBeGreaterThan(report.numberP50Micros)
  expect(report.transferP50Micros).toBeGreaterThan(0)
  // The parked worker's answers (each checked for its length by the script): a megabyte copied and
  // transferred costs more than its place in shared memory, which copies nothing.
  expect(report.parkedNumberP50Micros).toBeGreaterThan(0)
  expect(report.parkedTransferP50Micros).toBeGreaterThan(report.parkedSharedP50Micros)
}, 120_000)
