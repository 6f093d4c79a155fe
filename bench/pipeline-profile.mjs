// Where one event's microseconds go on the collector path: the `collectInTurns` stage of
// bench/pipeline-stages.mjs (read + process + store, in process, without HTTP, --per-turn requests
// read in each turn of the event loop) under V8's sampling profiler, its samples' self time grouped
// by the part of Floe (or of Node) they were in, in µs per event. The same events as the ingest
// scenarios: a page view with two contexts. The profile also sees the harness making each request's
// fresh strings (Buffer's latin1 decoding, ~1 µs a GET request), which the stage's own figure leaves out.
// Usage: node bench/pipeline-profile.mjs [--mode get|post] [--events 50000] [--top 15] [--per-turn 10]
import { Session } from 'node:inspector/promises'
import { option } from './support/load.mjs'
import { microsPerEventInTurns, pipelineHarness } from './support/pipeline-harness.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const EVENTS = option('events', 50_000)
const TOP = option('top', 15)
const PER_TURN = option('per-turn', 10)

const pipeline = await pipelineHarness({
  distRoot: new URL('../dist', import.meta.url).pathname,
  mode,
  capacity: 100_000,
})
const requests = Math.ceil(EVENTS / pipeline.eventsPerRequest)
// Warm-up: the optimising compiler has seen the path before the profile starts.
await microsPerEventInTurns(pipeline, Math.ceil(requests / 5), PER_TURN)

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.setSamplingInterval', { interval: 50 })
await session.post('Profiler.start')
const total = await microsPerEventInTurns(pipeline, requests, PER_TURN)
const { profile } = await session.post('Profiler.stop')
session.disconnect()

/** The part of the path a sample's function belongs to, by its file. */
const PARTS = [
  [
    /\/pipeline\/steps\/validate|\/resolver\/|\/ajv\/|ajv-formats|\/iglu\//,
    'schema validation (Ajv, the resolver)',
  ],
  [/\/pipeline\/enrichments\//, 'enrichments'],
  [
    /\/pipeline\/adapt-payload|\/pipeline\/tracker-protocol|\/pipeline\/payload/,
    'tracker protocol (adapter)',
  ],
  [/\/pipeline\/atomic|\/pipeline\/steps\//, 'atomic fields and other steps'],
  [/\/pipeline\/(enrich-event|canonical-event|java-doubles)/, 'the enriched event'],
  [/\/collector\//, 'the collector request'],
  [/\/store\//, 'the event store'],
  [/\/inspection\/(inspection\.service|event-log|live)/, 'the service (log, live stream)'],
  [/\/pipeline\//, 'the pipeline, other'],
  [/re2js/, 'RE2 patterns'],
  [/^node:|^internal\//, 'Node'],
]
const partOf = (node) => {
  const { url, functionName } = node.callFrame
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === '(program)' || functionName === '(idle)') return 'V8 and idle'
  if (url === '') return `native: ${functionName || '(anonymous)'}`
  return PARTS.find(([pattern]) => pattern.test(url))?.[1] ?? 'other JavaScript'
}

// The profiler's own stop (`session.post`, which the last sample lands in with the whole stop's
// time as its delta) is not the pipeline's: every node under a frame of node:inspector is left out.
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const inspectorNodes = new Set()
const leaveOut = (id) => {
  inspectorNodes.add(id)
  for (const child of byId.get(id)?.children ?? []) leaveOut(child)
}
for (const node of profile.nodes) if (node.callFrame.url === 'node:inspector') leaveOut(node.id)

const selfMicros = new Map()
for (let i = 0; i < profile.samples.length; i++)
  if (!inspectorNodes.has(profile.samples[i]))
    selfMicros.set(
      profile.samples[i],
      (selfMicros.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0),
    )
const byPart = new Map()
const byFunction = new Map()
let sampled = 0
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0
  if (micros === 0) continue
  sampled += micros
  const part = partOf(node)
  byPart.set(part, (byPart.get(part) ?? 0) + micros)
  const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`
  byFunction.set(where, (byFunction.get(where) ?? 0) + micros)
}
const events = requests * pipeline.eventsPerRequest
const perEvent = (micros) => Number(((micros / sampled) * total).toFixed(2))
const ranked = (map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, micros]) => ({ name, microsPerEvent: perEvent(micros) }))
console.log(
  JSON.stringify({
    scenario: 'pipeline-profile',
    mode,
    events,
    microsPerEvent: Number(total.toFixed(2)),
    parts: ranked(byPart, byPart.size),
    functions: ranked(byFunction, TOP),
  }),
)
