// Start-up and idle memory: `floe start` as `npm start` runs it (the built server), timed from the
// spawn to its first 200 from /health, on an empty data directory (a first start) and again on the
// same one (a restart); then its resident memory once idle. Baseline, in the same run and
// alternately: the bare Fastify server of bench/baseline-server.mjs, started and measured the same way.
// Each figure is the median of --rounds rounds (default 5), with the spread (min–max).
// --in-process: event inspection on the main thread (FLOE_INSPECTION_THREAD=off); by default in a
// thread of its own, as Floe runs it.
// Usage: node bench/startup.mjs [--rounds 5] [--in-process]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inspectionThreadOption, median, option } from './support/load.mjs'
import { cpuMillis, freePort, residentMb, serverNodeFlags } from './support/processes.mjs'

const ROUNDS = option('rounds', 5)
const { thread: THREAD, env: floeEnv } = inspectionThreadOption()
const MAIN = new URL('../dist/floe.mjs', import.meta.url).pathname
const BASELINE = new URL('./baseline-server.mjs', import.meta.url).pathname

/** Polls /health every 2 ms from the spawn; the ms until the first 200. */
async function timeToHealth(url, child, started) {
  let exited = null
  child.once('exit', (code) => (exited = code))
  for (;;) {
    if (exited !== null) throw new Error(`the server exited with ${exited} before answering`)
    try {
      if ((await fetch(`${url}/health`)).ok) return performance.now() - started
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 60_000) throw new Error(`${url} never answered /health`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/**
 * Waits until the process is idle (under 20 ms of CPU in a 500 ms window: its start-up work, timers
 * and deferred compilations done), at most 20 s, then reads its resident memory.
 */
async function idleResidentMb(pid) {
  const deadline = performance.now() + 20_000
  let before = cpuMillis(pid)
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const now = cpuMillis(pid)
    if (now - before < 20) break
    before = now
  }
  return residentMb(pid)
}

async function measure(args, env) {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [...serverNodeFlags(), ...args, '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    // stderr carries the banner (stdout is not a terminal, so logs are JSON): kept to explain a failure.
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  try {
    const ms = await timeToHealth(`http://127.0.0.1:${port}`, child, started).catch((error) => {
      throw new Error(`${error.message}\n${stderr}`)
    })
    return { ms, rssMb: await idleResidentMb(child.pid) }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
}

const floeArgs = [MAIN, 'start', '--host', '127.0.0.1', '--log-level', 'warn', '--no-iglu-central']
const runs = { first: [], restart: [], baseline: [] }
for (let round = 0; round < ROUNDS; round++) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-startup-'))
  try {
    runs.baseline.push(await measure([BASELINE, '--log-level', 'warn'], {}))
    runs.first.push(await measure(floeArgs, { ...floeEnv, FLOE_DATA_DIR: dataDir }))
    runs.restart.push(await measure(floeArgs, { ...floeEnv, FLOE_DATA_DIR: dataDir }))
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const summary = (values) => ({
  median: Math.round(median(values)),
  min: Math.round(Math.min(...values)),
  max: Math.round(Math.max(...values)),
})
const of = (list, key) => summary(list.map((run) => run[key]))
console.log(
  JSON.stringify({
    scenario: 'startup',
    rounds: ROUNDS,
    thread: THREAD,
    firstStartMs: of(runs.first, 'ms'),
    restartMs: of(runs.restart, 'ms'),
    firstStartIdleRssMb: of(runs.first, 'rssMb'),
    restartIdleRssMb: of(runs.restart, 'rssMb'),
    baselineStartMs: of(runs.baseline, 'ms'),
    baselineIdleRssMb: of(runs.baseline, 'rssMb'),
  }),
)
