// Ingest: page views with two contexts (web_page and a custom entity deployed to the registry's DEV
// environment), validated and enriched by `floe start` in another process.
//   --mode get:  GET /i, one event per request; baseline: a bare Fastify route returning the same GIF.
//   --mode post: POST tp2 with --batch events per request; baseline: a bare route answering "ok".
//     The events of a batch carry the same contexts text, as a page's events do; with
//     --distinct-entities each carries its own (a web_page id of its own), none repeated.
// Figures: events/s and latency p50/p99, the baseline's requests/s, and their ratio.
//   --in-process: event inspection on the main thread (FLOE_INSPECTION_THREAD=off); by default in a
//   thread of its own, as Floe runs it.
// Usage: node bench/ingest.mjs --mode get|post [--distinct-entities] [--in-process] [--duration 10] [--rounds 5] [--connections 10] [--batch 10] [--warmup 2]
import {
  accessToken,
  deployToDev,
  residentMb,
  startBaseline,
  startFloe,
} from './support/processes.mjs'
import { alternate, inspectionThreadOption, option } from './support/load.mjs'
import {
  benchContexts as contexts,
  benchIngestRequest,
  BENCH_BATCH,
  BENCH_PRODUCT as PRODUCT,
} from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const DURATION = option('duration', 10)
const ROUNDS = option('rounds', 5)
const CONNECTIONS = option('connections', 10)
const BATCH = option('batch', BENCH_BATCH)
const DISTINCT = process.argv.includes('--distinct-entities')
const { thread: THREAD, env: threadEnv } = inspectionThreadOption()
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info'

const floe = await startFloe({
  logLevel,
  env: threadEnv,
})
const baselineServer = await startBaseline({ logLevel })
try {
  await deployToDev(floe.url, await accessToken(floe.url), PRODUCT)
  const request = (url) =>
    benchIngestRequest(mode, url, BATCH, { distinctEntities: DISTINCT && mode === 'post' })

  // One request first: the events must come out good, with both contexts, or the figures mean nothing.
  await fetch(request(floe.url).url, request(floe.url))
  const [checked] = await (
    await fetch(`${floe.url}/local/good`, {
      method: 'POST',
      body: JSON.stringify({ contexts: contexts.data.map((c) => c.schema), limit: 1 }),
    })
  ).json()
  const counts = await (await fetch(`${floe.url}/local/all`)).json()
  if (checked === undefined || counts.bad !== 0)
    throw new Error(`the bench events are not good: ${JSON.stringify(counts)}`)

  // Floe's resident memory all along: its event store fills to its default bound during the first
  // round and then drops its oldest events, so the peak shows how far the heap grows under a flood.
  let peakRssMb = residentMb(floe.pid)
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, residentMb(floe.pid))), 250)
  const { subject, baseline, ratios } = await alternate({
    subject: request(floe.url),
    baseline: request(baselineServer.url),
    rounds: ROUNDS,
    duration: DURATION,
    connections: CONNECTIONS,
  })
  clearInterval(sampler)
  const after = await (await fetch(`${floe.url}/local/all`)).json()
  const perRequest = mode === 'get' ? 1 : BATCH
  const eventsPerSecond = subject.requestsPerSecond * perRequest
  const ratio = eventsPerSecond / baseline.requestsPerSecond
  const target = mode === 'get' ? 0.7 : 3
  console.log(
    JSON.stringify({
      scenario: mode === 'get' ? 'ingest-get' : DISTINCT ? 'ingest-post-distinct' : 'ingest-post',
      thread: THREAD,
      eventsPerRequest: perRequest,
      durationSeconds: DURATION,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      logLevel,
      eventsPerSecond: Math.round(eventsPerSecond),
      requestsPerSecond: Math.round(subject.requestsPerSecond),
      p50Ms: subject.p50Ms,
      p99Ms: subject.p99Ms,
      baselineRequestsPerSecond: Math.round(baseline.requestsPerSecond),
      baselineP50Ms: baseline.p50Ms,
      baselineP99Ms: baseline.p99Ms,
      ratio,
      // Per round; tp2 in events per baseline request.
      ratioSpread: {
        min: Math.min(...ratios) * perRequest,
        max: Math.max(...ratios) * perRequest,
      },
      target,
      met: ratio >= target,
      allGood: after.bad === 0 && subject.non2xx === 0 && subject.errors === 0,
      storedAtEnd: after.good,
      peakRssMb: Math.round(peakRssMb),
    }),
  )
} finally {
  await floe.stop()
  await baselineServer.stop()
}
