// Pipeline stages, in process and without HTTP: what one event costs in each part of the collector
// path, for the ingest scenarios' page view (2 contexts, one of them a custom entity with a pattern).
// Each stage runs --events events, --rounds times; the fastest round is reported (the least disturbed
// by other work on the machine). Stages:
//   read:     the HTTP request's parts to a collector payload (query string, cookies, headers)
//   process:  the payload through adapter, atomic fields, validation and enrichments (nothing stored)
//   collect:  read + process + store, as the collector route does, into a store of --capacity events,
//             one request at a time (each waits for its events to be stored)
//   collectInTurns: the same as the server meets it under load: --per-turn requests read in one turn
//             of the event loop (the ingest scenarios' 10 connections), each with fresh strings
//   stringify: JSON.stringify of the good event, for scale (what writing it to a client costs)
// --distinct-entities (post): each event of a batch carries contexts of its own (see benchContextsText).
// Usage: node bench/pipeline-stages.mjs [--mode get|post] [--distinct-entities] [--events 20000] [--rounds 3] [--capacity 100000] [--per-turn 10]
import { option } from './support/load.mjs'
import {
  microsPerEvent,
  microsPerEventInTurns,
  pipelineHarness,
} from './support/pipeline-harness.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const EVENTS = option('events', 20_000)
const ROUNDS = option('rounds', 3)
const CAPACITY = option('capacity', 100_000)
const PER_TURN = option('per-turn', 10)

const pipeline = await pipelineHarness({
  distRoot: new URL('../dist', import.meta.url).pathname,
  mode,
  capacity: CAPACITY,
  distinctEntities: process.argv.includes('--distinct-entities'),
})
const { eventsPerRequest } = pipeline

const REQUESTS = Math.ceil(EVENTS / eventsPerRequest)

/** The fewest microseconds per event that `measure` gives in ROUNDS rounds. */
async function fastest(measure) {
  let best = Infinity
  for (let round = 0; round < ROUNDS; round++) best = Math.min(best, await measure())
  return Number(best.toFixed(2))
}

/** Microseconds per event of `step`, the fastest of ROUNDS rounds. */
const perEvent = (step) => fastest(() => microsPerEvent(step, REQUESTS, eventsPerRequest))

const stages = {
  readMicros: await perEvent(pipeline.read),
  processMicros: await perEvent(pipeline.process),
  collectMicros: await perEvent(pipeline.collect),
  collectInTurnsMicros: await fastest(() => microsPerEventInTurns(pipeline, REQUESTS, PER_TURN)),
  stringifyMicros: await perEvent(() => JSON.stringify(pipeline.goodEvents)),
}
const counts = await pipeline.inspection.store.counts()
console.log(
  JSON.stringify({
    scenario: 'pipeline-stages',
    mode,
    distinctEntities: process.argv.includes('--distinct-entities'),
    eventsPerRequest,
    events: EVENTS,
    rounds: ROUNDS,
    perTurn: PER_TURN,
    ...stages,
    stored: counts.good,
    bad: counts.bad,
    eventJsonBytes: JSON.stringify(pipeline.goodEvents[0]).length,
  }),
)
