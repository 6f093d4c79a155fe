// Two builds' collector pipelines in one process, for before/after figures that the machine's
// load disturbs as little as possible: this checkout's `dist` and --other's (another checkout,
// built with `npx tsc -b tsconfig.build.json`, of the same module layout). Rounds alternate between
// the builds and stages; the first two rounds warm up, and the fastest of the rest is reported.
// Stages: process and collect as in bench/pipeline-stages.mjs, and collectInTurns (--per-turn requests
// read in each turn of the event loop, with fresh strings, as the server meets them).
// Usage: node bench/pipeline-compare.mjs --other ../floe-before [--mode get|post] [--rounds 24] [--events 3000] [--per-turn 10]
import path from 'node:path'
import { option } from './support/load.mjs'
import {
  microsPerEvent,
  microsPerEventInTurns,
  pipelineHarness,
} from './support/pipeline-harness.mjs'

const at = process.argv.indexOf('--other')
if (at < 0 || process.argv[at + 1] === undefined) throw new Error('--other <checkout> is required')
const mode = process.argv.includes('post') ? 'post' : 'get'
const ROUNDS = option('rounds', 24)
const EVENTS = option('events', 3000)
const WARM_UP_ROUNDS = 2
const PER_TURN = option('per-turn', 10)

const builds = {
  this: new URL('../dist', import.meta.url).pathname,
  other: path.resolve(process.argv[at + 1], 'dist'),
}
const pipelines = {}
for (const [name, distRoot] of Object.entries(builds))
  pipelines[name] = await pipelineHarness({ distRoot, mode, capacity: 100_000 })
const { eventsPerRequest } = pipelines.this

const best = {}
for (let round = 0; round < Math.max(ROUNDS, WARM_UP_ROUNDS + 1); round++) {
  for (const [name, pipeline] of Object.entries(pipelines)) {
    for (const stage of ['process', 'collect', 'collectInTurns']) {
      const requests = Math.ceil(EVENTS / eventsPerRequest)
      const micros =
        stage === 'collectInTurns'
          ? await microsPerEventInTurns(pipeline, requests, PER_TURN)
          : await microsPerEvent(pipeline[stage], requests, eventsPerRequest)
      if (round >= WARM_UP_ROUNDS)
        best[`${name}.${stage}`] = Math.min(best[`${name}.${stage}`] ?? Infinity, micros)
    }
  }
}
const micros = (key) => Number(best[key].toFixed(2))
console.log(
  JSON.stringify({
    scenario: 'pipeline-compare',
    mode,
    other: builds.other,
    rounds: ROUNDS,
    events: EVENTS,
    thisProcessMicros: micros('this.process'),
    otherProcessMicros: micros('other.process'),
    thisCollectMicros: micros('this.collect'),
    otherCollectMicros: micros('other.collect'),
    thisCollectInTurnsMicros: micros('this.collectInTurns'),
    otherCollectInTurnsMicros: micros('other.collectInTurns'),
    processRatio: Number((best['this.process'] / best['other.process']).toFixed(3)),
    collectRatio: Number((best['this.collect'] / best['other.collect']).toFixed(3)),
    collectInTurnsRatio: Number(
      (best['this.collectInTurns'] / best['other.collectInTurns']).toFixed(3),
    ),
  }),
)
