// Runs every benchmark scenario in its own process, one after the other, and writes BENCHMARKS.md:
// the machine, the date, and per scenario its figure, its baseline (measured in the same run), the
// ratio, the target and whether it is met. Whatever follows the notes marker in the existing file
// (the before/after record and the profile notes) is kept.
// Usage: node bench/run.mjs [--duration 10] [--rounds 2] [--events 100000]
import { execFileSync } from 'node:child_process'
import { cpus, loadavg, totalmem } from 'node:os'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'

const passed = (name) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? [`--${name}`, process.argv[at + 1]] : []
}
const load = [...passed('duration'), ...passed('rounds')]
const scenarios = [
  ['startup.mjs', ...passed('rounds')],
  ['ingest.mjs', '--mode', 'get', ...load],
  ['ingest.mjs', '--mode', 'post', ...load],
  ['ingest.mjs', '--mode', 'post', '--distinct-entities', ...load],
  // Floe's default (event inspection in its own thread) against the floor; then in process, where
  // the store's lookup, the scan baseline and the heap per stored event can be measured.
  ['query.mjs', ...load, ...passed('events')],
  ['query.mjs', '--in-process', ...load, ...passed('events')],
  ['registry.mjs', ...load],
  ['compatibility.mjs'],
  ['scenario-list.mjs'],
  ['memory-flood.mjs'],
  ['pipeline-stages.mjs', '--mode', 'get'],
  ['pipeline-stages.mjs', '--mode', 'post'],
]
const loadBefore = loadavg()[0]
const results = scenarios.map(([script, ...args]) => {
  process.stderr.write(`bench: ${script} ${args.join(' ')}\n`)
  const output = execFileSync(
    process.execPath,
    [new URL(`./${script}`, import.meta.url).pathname, ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  )
  return JSON.parse(output.trim().split('\n').pop())
})
const byName = (name) => results.find((r) => r.scenario === name)
const ms = (value) => `${Number(value).toFixed(2)} ms`
const yes = (met) => (met ? 'yes' : '**no**')
const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`

const startup = byName('startup')
const get = byName('ingest-get')
const post = byName('ingest-post')
const distinct = byName('ingest-post-distinct')
const query = results.find((r) => r.scenario === 'query' && r.thread)
const queryInProcess = results.find((r) => r.scenario === 'query' && !r.thread)
const registry = byName('registry')
const compat = byName('compatibility')
const list = byName('scenario-list')
const rows = [
  `| 1. Ingest, GET /i (page view, 2 contexts) | ${get.eventsPerSecond} events/s; p50 ${get.p50Ms} ms, p99 ${get.p99Ms} ms; resident memory at most ${get.peakRssMb ?? '—'} MB (${get.storedAtEnd ?? '—'} events stored at the end) | bare GIF route: ${get.baselineRequestsPerSecond} req/s; p50 ${get.baselineP50Ms} ms, p99 ${get.baselineP99Ms} ms | ${get.ratio.toFixed(2)} | ≥ 0.7 | ${yes(get.met)} |`,
  `| 2. Ingest, POST tp2 (${post.eventsPerRequest} events/request) | ${post.eventsPerSecond} events/s (${post.requestsPerSecond} req/s); p50 ${post.p50Ms} ms, p99 ${post.p99Ms} ms; resident memory at most ${post.peakRssMb ?? '—'} MB | bare "ok" route: ${post.baselineRequestsPerSecond} req/s | ${post.ratio.toFixed(2)} events per baseline request | ≥ 3 | ${yes(post.met)} |`,
  `| 2. Ingest, POST tp2 as above, each event's contexts its own (no text repeated in a batch) | ${distinct.eventsPerSecond} events/s (${distinct.requestsPerSecond} req/s); p50 ${distinct.p50Ms} ms, p99 ${distinct.p99Ms} ms | bare "ok" route: ${distinct.baselineRequestsPerSecond} req/s | ${distinct.ratio.toFixed(2)} events per baseline request (${distinct.ratioSpread.min.toFixed(2)}–${distinct.ratioSpread.max.toFixed(2)}) | — | — |`,
  `| 3. Query, POST /local/good (schema, limit ${query.limit}) over ${query.stored} events, event inspection in its own thread (the default) | HTTP p50 ${query.p50Ms} ms (${query.requestsPerSecond} req/s) | the floor: p50 ${query.floorP50Ms} ms | ${query.floorRatio.toFixed(2)} of the floor | ≥ 0.9 | ${yes(query.floorRatio >= 0.9)} |`,
  `| 3. Query, as above with event inspection in process (\`--in-process\`), over ${queryInProcess.stored} events | HTTP p50 ${queryInProcess.p50Ms} ms (${queryInProcess.requestsPerSecond} req/s); lookup alone p50 ${ms(queryInProcess.lookupP50Ms)} | linear scan: HTTP p50 ${queryInProcess.baselineP50Ms} ms (${queryInProcess.baselineRequestsPerSecond} req/s); scan alone p50 ${ms(queryInProcess.scanP50Ms)} | ${queryInProcess.speedup.toFixed(1)}× over HTTP (${queryInProcess.throughputSpeedup.toFixed(1)}× req/s); ${queryInProcess.lookupSpeedup.toFixed(0)}× lookup alone; ${queryInProcess.floorRatio.toFixed(2)} of the floor | ≥ 20× | ${yes(queryInProcess.speedup >= 20)} over HTTP, ${yes(queryInProcess.lookupSpeedup >= 20)} lookup alone |`,
  `| 3. Query, the floor: the same answer (${(queryInProcess.answerBytes / 1000).toFixed(0)} kB) pre-serialized by a bare route | mean ${ms(queryInProcess.floorMeanMs)} (subject in process: mean ${ms(queryInProcess.meanMs)}) | linear scan: mean ${ms(queryInProcess.baselineMeanMs)} | ${queryInProcess.floorSpeedup.toFixed(1)}×: the most any server could reach here (subject ${queryInProcess.meanSpeedup.toFixed(1)}× by the mean) | — | — |`,
  `| 3. Query, memory (the store measured in process: a thread's heap cannot be read from outside it on Node 20) | ${queryInProcess.bytesPerEvent} bytes per stored event (heap delta ${queryInProcess.heapDeltaMb} MB ÷ ${queryInProcess.events}) | — | — | ≤ 4096 bytes | ${yes(queryInProcess.bytesPerEvent <= 4096)} |`,
  `| 4. Registry, GET …/versions/{v} with a bearer token | ${registry.requestsPerSecond} req/s; p50 ${registry.p50Ms} ms, p99 ${registry.p99Ms} ms | bare JSON route, no auth: ${registry.baselineRequestsPerSecond} req/s; p50 ${registry.baselineP50Ms} ms | ${registry.ratio.toFixed(2)} | ≥ 0.8 | ${yes(registry.met)} |`,
  `| 4. Registry, validation request (50-property schema, 1 connection) | a new document each request: p50 ${registry.validationP50Ms} ms, p99 ${registry.validationP99Ms} ms (${registry.validationRequestsPerSecond} req/s); the same document again (its report remembered): p50 ${registry.repeatedValidationP50Ms} ms, p99 ${registry.repeatedValidationP99Ms} ms | — | — | — | — |`,
  `| 5. Compatibility, ${compat.pairs} consecutive Iglu Central pairs | median ${ms(compat.medianMs)}, p99 ${ms(compat.p99Ms)}; ${(compat.decidedShare * 100).toFixed(1)}% decided | Ajv compiles both schemas: median ${ms(compat.baselineMedianMs)} | ${compat.ratioToBaseline.toFixed(2)}× the baseline's time | — | — |`,
  `| 6. Tracking scenarios, a list of ${list.scenarios} checked against a data structure | warm verdicts: p50 ${list.warmP50Ms} ms; just after a restart (verdicts read from the store): ${list.coldMs} ms | the same list of unchecked scenarios: p50 ${list.baselineP50Ms} ms | ${list.ratio.toFixed(2)} | warm well under 1 s | ${yes(list.met)} |`,
]
const flood = byName('memory-flood')
const stages = (mode) => results.find((r) => r.scenario === 'pipeline-stages' && r.mode === mode)
// What the ingest targets leave the pipeline per event, assuming Floe handled a request as cheaply as
// the bare route (it does not, so these are upper bounds): GET, 1/(0.7 r) − 1/r; tp2, 1/(3 r) − 1/(10 r).
const budgetGet = ((1 / 0.7 - 1) / get.baselineRequestsPerSecond) * 1e6
const budgetPost = ((1 / 3 - 1 / post.eventsPerRequest) / post.baselineRequestsPerSecond) * 1e6
const pipelineLine = `The collector pipeline in process, without HTTP (\`bench/pipeline-stages.mjs\`, fastest of ${stages('get').rounds} rounds of ${stages('get').events} events): read + process + store ${stages('get').collectMicros} µs per event for the GET page view, ${stages('post').collectMicros} µs per event in tp2 batches, one request at a time; ${stages('get').collectInTurnsMicros} and ${stages('post').collectInTurnsMicros} µs with ${stages('get').perTurn} requests read in each turn of the event loop and fresh request strings, as the server meets them under the ingest load. The ingest targets leave it at most ${budgetGet.toFixed(0)} µs (GET: 1/(0.7 × baseline) − 1/baseline) and ${budgetPost.toFixed(0)} µs (tp2: 1/(3 × baseline) − 1/(${post.eventsPerRequest} × baseline)) per event, even if Floe's own request handling cost no more than the bare route's.`
// The targets of issue 29, each figure with its baseline from this run, the median of the rounds
// and the spread (min–max over the rounds).
const spread = ({ min, max }, unit = '') => `${min}–${max}${unit}`
const two = (x) => Number(x).toFixed(2)
const targets = [
  [
    'First start to a 200 from /health (empty data dir)',
    `${startup.firstStartMs.median} ms (${spread(startup.firstStartMs, ' ms')})`,
    `bare Fastify server: ${startup.baselineStartMs.median} ms`,
    '≤ 1500 ms',
    startup.firstStartMs.median <= 1500,
  ],
  [
    'Restart on an existing data dir',
    `${startup.restartMs.median} ms (${spread(startup.restartMs, ' ms')})`,
    `bare Fastify server: ${startup.baselineStartMs.median} ms`,
    '≤ 1000 ms',
    startup.restartMs.median <= 1000,
  ],
  [
    'Idle RSS after a first start / a restart',
    `${startup.firstStartIdleRssMb.median} / ${startup.restartIdleRssMb.median} MB (${spread(startup.firstStartIdleRssMb)} / ${spread(startup.restartIdleRssMb, ' MB')})`,
    `bare Fastify server: ${startup.baselineIdleRssMb.median} MB`,
    '≤ 200 MB, both',
    startup.firstStartIdleRssMb.median <= 200 && startup.restartIdleRssMb.median <= 200,
  ],
  [
    'GET /i ingest, ratio to a bare Fastify route',
    `${two(get.ratio)} (${two(get.ratioSpread.min)}–${two(get.ratioSpread.max)}); ${get.eventsPerSecond} events/s`,
    `${get.baselineRequestsPerSecond} req/s`,
    '≥ 0.7',
    get.ratio >= 0.7,
  ],
  [
    `tp2 POST of ${post.eventsPerRequest} events, events per baseline request`,
    `${two(post.ratio)} (${two(post.ratioSpread.min)}–${two(post.ratioSpread.max)}); ${post.eventsPerSecond} events/s`,
    `${post.baselineRequestsPerSecond} req/s`,
    '≥ 3',
    post.ratio >= 3,
  ],
  [
    'Query p50, ratio to the in-run floor (a bare route answering the same bytes)',
    `${two(query.floorRatio)} (${two(query.floorRatioSpread.min)}–${two(query.floorRatioSpread.max)}); p50 ${query.p50Ms} ms`,
    `floor p50 ${query.floorP50Ms} ms; a bare route joining the same texts per request: p50 ${query.floorCopyP50Ms} ms (ratio ${two(query.floorCopyRatio)})`,
    '≥ 0.9',
    query.floorRatio >= 0.9,
  ],
  [
    'Heap per stored event (5 kB canonical event)',
    `${(queryInProcess.bytesPerEvent / 1000).toFixed(1)} kB (the memory store, measured in process)`,
    '—',
    '≤ 2.4 kB',
    queryInProcess.bytesPerEvent <= 2400,
  ],
]
// The newest earlier run kept in bench/results/, shown beside this one so that a regression shows.
const resultsDir = new URL('./results/', import.meta.url)
mkdirSync(resultsDir, { recursive: true })
const earlier = readdirSync(resultsDir)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .at(-1)
const earlierRun =
  earlier === undefined ? null : JSON.parse(readFileSync(new URL(earlier, resultsDir), 'utf8'))
const earlierNow = (what) => earlierRun?.targets?.find((t) => t.what === what)?.now ?? '—'
const earlierName =
  earlierRun === null ? '' : ` (${earlierRun.date.slice(0, 10)}, ${earlierRun.commit})`
const targetTable = [
  `| What | Now | Baseline (same run) | Target | Met? | Previous run${earlierName} |`,
  '|---|---|---|---|---|---|',
  ...targets.map(
    ([what, now, base, target, met]) =>
      `| ${what} | ${now} | ${base} | ${target} | ${yes(met)} | ${earlierNow(what)} |`,
  ),
]

// Each run's figures are kept, one JSON file a run, so that a regression shows against history.
const stamp = new Date().toISOString()
let commit = 'unknown'
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
} catch {
  // not a git checkout
}
writeFileSync(
  new URL(`${stamp.replace(/[:.]/g, '-')}.json`, resultsDir),
  `${JSON.stringify({ date: stamp, commit, machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)), node: process.version, loadAverageAtStart: loadBefore }, targets: targets.map(([what, now, base, target, met]) => ({ what, now, baseline: base, target, met })), results }, null, 2)}\n`,
)

const marker = '<!-- notes: kept by bench/run.mjs -->'
const path = new URL('../BENCHMARKS.md', import.meta.url)
const previous = existsSync(path) ? readFileSync(path, 'utf8') : ''
const notes = previous.includes(marker) ? previous.slice(previous.indexOf(marker)) : marker
const lines = [
  '# Benchmarks',
  '',
  `Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}. Produced by \`npm run bench\`; load average ${loadBefore.toFixed(1)} when it started.`,
  '',
  `Load comes from autocannon in the bench process; each server runs in its own process on loopback (Floe as \`floe start\` on a fresh embedded database, the baselines as bare Fastify routes with the same options and log level, \`${get.logLevel}\`). Subject and baseline run alternately, ${get.rounds} rounds of ${get.durationSeconds} s each with ${get.connections} connections (query: ${query.connections}); the median round is reported.`,
  '',
  `## Targets (issue 29)`,
  '',
  `Start-up: \`floe start\` as \`npm start\` runs it, from the spawn to its first 200 from /health, then its resident memory once idle; ${startup.rounds} rounds, each figure the median with the spread. Every run's figures are in \`bench/results/\`.`,
  '',
  ...targetTable,
  '',
  '## All scenarios',
  '',
  '| Scenario | Figure | Baseline (same run) | Ratio | Target | Met? |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  pipelineLine,
  '',
  `Memory under a flood of ${flood.events} events with \`--max-events ${flood.maxEvents}\` (${flood.eventsPerSecond} events/s): resident memory ${flood.rssAtTenthMb} MB at 10%, ${flood.rssAtHalfMb} MB at 50%, ${flood.rssEndMb} MB at the end (peak during the flood ${flood.rssPeakDuringFloodMb} MB; ${flood.rssStartMb} MB just after start-up). Counts correct: ${flood.countsCorrect}; eviction correct: ${flood.evictionCorrect}.`,
  '',
  notes,
  '',
]
writeFileSync(path, lines.join('\n'))
console.log(lines.join('\n'))
