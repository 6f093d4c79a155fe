// Two builds' servers under the same ingest load, for before/after figures that the machine's other
// work disturbs as little as possible: each build's `floe start` gets --seconds of load at a time,
// alternately, and the figure is the server's CPU time per event (user + system, read from /proc),
// the fewest of the rounds after the first, beside the throughput of that round; and the median of
// the rounds' ratios, each of two measurements taken one after the other. Rounds last a time,
// not a number of requests: autocannon given an amount paced itself at ~10 000 requests/s, below
// what the servers take. The two servers run side by side from start to end, so each round of one
// sees the same machine as the other's.
// Node's flags can differ too (`--other .` for the same build): --this-flags "--a --b", --other-flags "…".
// Usage: node bench/ingest-compare.mjs --other ../floe-before [--mode get|post] [--rounds 6] [--seconds 3] [--connections 10]
//   [--this-flags "<node flags>"] [--other-flags "<node flags>"]
import { existsSync } from 'node:fs'
import path from 'node:path'
import { load, median, option } from './support/load.mjs'
import { accessToken, cpuMillis, deployToDev, startFloe } from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH, BENCH_PRODUCT as PRODUCT } from './support/page-view.mjs'

const at = process.argv.indexOf('--other')
if (at < 0 || process.argv[at + 1] === undefined) throw new Error('--other <checkout> is required')
const mode = process.argv.includes('post') ? 'post' : 'get'
const ROUNDS = option('rounds', 6)
const SECONDS = option('seconds', 3)
const CONNECTIONS = option('connections', 10)
const perRequest = mode === 'get' ? 1 : BENCH_BATCH
const request = (url) => benchIngestRequest(mode, url)
const flagsOf = (name) => {
  const index = process.argv.indexOf(`--${name}-flags`)
  return index < 0 ? [] : (process.argv[index + 1] ?? '').split(' ').filter((flag) => flag !== '')
}

const builds = {
  this: new URL('../dist/floe.mjs', import.meta.url).pathname,
  // An older build has no bundle: its tsc output then.
  other: existsSync(path.resolve(process.argv[at + 1], 'dist/floe.mjs'))
    ? path.resolve(process.argv[at + 1], 'dist/floe.mjs')
    : path.resolve(process.argv[at + 1], 'dist/main.js'),
}
const servers = {}
try {
  for (const [name, main] of Object.entries(builds)) {
    servers[name] = await startFloe({ main, nodeFlags: flagsOf(name) })
    await deployToDev(servers[name].url, await accessToken(servers[name].url), PRODUCT)
  }
  const best = {}
  /** Each round after the first: this build's CPU per event over the other's, measured minutes apart. */
  const roundRatios = []
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = {}
    // Which build goes first changes each round: the same build against itself measured ~6% apart
    // when one always went first.
    const order = round % 2 === 0 ? ['this', 'other'] : ['other', 'this']
    for (const name of order) {
      const server = servers[name]
      const before = cpuMillis(server.pid)
      const started = performance.now()
      const result = await load({
        ...request(server.url),
        duration: SECONDS,
        connections: CONNECTIONS,
      })
      const seconds = (performance.now() - started) / 1000
      const cpuMicrosPerEvent =
        ((cpuMillis(server.pid) - before) * 1000) / (result.requests * perRequest)
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name}: ${result.non2xx} answers not 2xx, ${result.errors} errors`)
      cpu[name] = cpuMicrosPerEvent
      // The first round warms both servers up.
      if (round > 0 && cpuMicrosPerEvent < (best[name]?.cpuMicrosPerEvent ?? Infinity))
        best[name] = {
          cpuMicrosPerEvent: Number(cpuMicrosPerEvent.toFixed(1)),
          eventsPerSecond: Math.round((result.requests * perRequest) / seconds),
        }
    }
    if (round > 0) roundRatios.push(cpu.this / cpu.other)
  }
  roundRatios.sort((a, b) => a - b)
  const medianRoundRatio = median(roundRatios)
  for (const [name, server] of Object.entries(servers)) {
    const counts = await (await fetch(`${server.url}/local/all`)).json()
    if (counts.bad !== 0) throw new Error(`${name}: ${counts.bad} bad events`)
  }
  console.log(
    JSON.stringify({
      scenario: 'ingest-compare',
      mode,
      otherBuild: builds.other,
      thisFlags: flagsOf('this'),
      otherFlags: flagsOf('other'),
      rounds: ROUNDS,
      seconds: SECONDS,
      this: best.this,
      other: best.other,
      cpuRatio: Number((best.this.cpuMicrosPerEvent / best.other.cpuMicrosPerEvent).toFixed(3)),
      // Less moved by a machine whose speed drifts over minutes than the ratio of the fewest.
      medianRoundRatio: Number(medianRoundRatio.toFixed(3)),
      roundRatios: roundRatios.map((ratio) => Number(ratio.toFixed(3))),
    }),
  )
} finally {
  for (const server of Object.values(servers)) await server.stop()
}
