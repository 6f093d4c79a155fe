// Where a request's CPU goes in the running server, next to the bare route: `floe start` and the
// baseline server each run under V8's sampling profiler (`--cpu-prof`) while the ingest scenario's
// load hits them; only the samples taken during the measured load window count (both processes and
// this one read the same monotonic clock). Self time is grouped by function and by part, in µs of
// the server's main thread per request.
// Usage: node bench/server-profile.mjs [--mode get|post] [--duration 8] [--warmup 4] [--top 25] [--part Node] [--callers nextTick]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { load, option } from './support/load.mjs'
import { accessToken, deployToDev, startBaseline, startFloe } from './support/processes.mjs'
import { benchIngestRequest, BENCH_BATCH, BENCH_PRODUCT } from './support/page-view.mjs'

const MAIN_UNBUNDLED = new URL('../dist/main.js', import.meta.url).pathname
const mode = process.argv.includes('post') ? 'post' : 'get'
const DURATION = option('duration', 8)
const WARMUP = option('warmup', 4)
const TOP = option('top', 25)
/** `--part Node` lists the functions of that part apart, for both servers. */
const PART = process.argv.includes('--part')
  ? process.argv[process.argv.indexOf('--part') + 1]
  : null
const INTERVAL_US = option('interval', 100)
/** `--callers nextTick` lists, for both servers, the call paths (3 frames up) of that function's samples. */
const CALLERS = process.argv.includes('--callers')
  ? process.argv[process.argv.indexOf('--callers') + 1]
  : null

/** The part of a server a sample's function belongs to, by its file. */
const PARTS = [
  [/\/(iglu|resolver)\/|\/ajv\/|ajv-formats|validate-entities/, 'schema validation'],
  [/\/inspection\/pipeline\//, 'the pipeline'],
  [/\/inspection\/(collector|store)\//, 'the collector and the store'],
  [/\/inspection\//, 'the inspection service'],
  [/\/dist\//, 'Floe, other'],
  [/fastify|find-my-way|avvio|light-my-request|@fastify/, 'Fastify'],
  [/pino|sonic-boom|thread-stream/, 'the log (pino)'],
  [/^node:|^internal\//, 'Node'],
]
const partOf = ({ url, functionName }) => {
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === '(idle)') return 'idle'
  if (functionName === '(program)') return 'V8 (program)'
  if (url === '') return `native: ${functionName || '(anonymous)'}`
  return PARTS.find(([pattern]) => pattern.test(url))?.[1] ?? 'other JavaScript'
}

const nowMicros = () => Number(process.hrtime.bigint() / 1000n)

/** Self time by function and by part within [from, to] (µs on the monotonic clock). */
function selfTimes(profile, from, to) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const byPart = new Map()
  const byFunction = new Map()
  const byPartFunction = new Map()
  const byCallers = new Map()
  const parents = new Map()
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node)
  const frameName = ({ functionName, url, lineNumber }) =>
    `${functionName || '(anonymous)'} ${url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${lineNumber + 1}`
  let at = profile.startTime
  let busy = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    const delta = profile.timeDeltas[i + 1] ?? 0
    if (at < from || at > to) continue
    const { callFrame } = nodes.get(profile.samples[i])
    const part = partOf(callFrame)
    if (part !== 'idle') busy += delta
    byPart.set(part, (byPart.get(part) ?? 0) + delta)
    const where = frameName(callFrame)
    byFunction.set(where, (byFunction.get(where) ?? 0) + delta)
    if (CALLERS !== null && callFrame.functionName === CALLERS) {
      const path = []
      for (
        let up = parents.get(profile.samples[i]);
        up !== undefined && path.length < 3;
        up = parents.get(up.id)
      )
        path.push(frameName(up.callFrame))
      const key = path.join(' < ')
      byCallers.set(key, (byCallers.get(key) ?? 0) + delta)
    }
    const inPart = byPartFunction.get(part) ?? new Map()
    inPart.set(where, (inPart.get(where) ?? 0) + delta)
    byPartFunction.set(part, inPart)
  }
  return { byPart, byFunction, byPartFunction, byCallers, busy }
}

async function profiled(start, name) {
  const dir = mkdtempSync(path.join(tmpdir(), `floe-profile-${name}-`))
  const server = await start([
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-interval=${INTERVAL_US}`,
  ])
  return { server, dir }
}

async function measure({ server, dir }, prepare) {
  await prepare?.(server.url)
  const request = benchIngestRequest(mode, server.url, BENCH_BATCH)
  await load({ ...request, duration: WARMUP })
  const from = nowMicros()
  const result = await load({ ...request, duration: DURATION })
  const to = nowMicros()
  await server.stop()
  const [file] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8'))
  rmSync(dir, { recursive: true, force: true })
  return { ...selfTimes(profile, from, to), requests: result.requests, result }
}

const floe = await measure(
  // The unbundled build, so that each sample names its module (the bundle runs the same code).
  await profiled((nodeFlags) => startFloe({ nodeFlags, main: MAIN_UNBUNDLED }), 'floe'),
  async (url) => deployToDev(url, await accessToken(url), BENCH_PRODUCT),
)
const bare = await measure(await profiled((nodeFlags) => startBaseline({ nodeFlags }), 'bare'))

const perRequest = (run, micros) => Number((micros / run.requests).toFixed(1))
const rows = (run, map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, micros]) => [name, perRequest(run, micros)])
const parts = new Set([...floe.byPart.keys(), ...bare.byPart.keys()])
console.log(
  JSON.stringify({
    scenario: 'server-profile',
    mode,
    requestsPerSecond: { floe: floe.result.requestsPerSecond, bare: bare.result.requestsPerSecond },
    busyMicrosPerRequest: { floe: perRequest(floe, floe.busy), bare: perRequest(bare, bare.busy) },
    parts: [...parts]
      .map((part) => [
        part,
        perRequest(floe, floe.byPart.get(part) ?? 0),
        perRequest(bare, bare.byPart.get(part) ?? 0),
      ])
      .sort((a, b) => b[1] - a[1]),
    floeFunctions: rows(floe, floe.byFunction, TOP),
    bareFunctions: rows(bare, bare.byFunction, Math.ceil(TOP / 2)),
    ...(CALLERS === null
      ? {}
      : {
          floeCallers: rows(floe, floe.byCallers, TOP),
          bareCallers: rows(bare, bare.byCallers, TOP),
        }),
    ...(PART === null
      ? {}
      : {
          floePart: rows(floe, floe.byPartFunction.get(PART) ?? new Map(), TOP),
          barePart: rows(bare, bare.byPartFunction.get(PART) ?? new Map(), TOP),
        }),
  }),
)
