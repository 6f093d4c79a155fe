// Server processes for the load scenarios: `floe start` from dist and the bare baseline server,
// each in its own process on loopback, with the same Fastify settings and the same log level.
import { spawn } from 'node:child_process'
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
} from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

const MAIN = new URL('../../dist/floe.mjs', import.meta.url).pathname
const BASELINE = new URL('../baseline-server.mjs', import.meta.url).pathname

/** Fixed credentials for the bench's Floe: its registry is reached with them. */
export const BOOTSTRAP = {
  organizationId: '0b1e5c4d-0000-4000-8000-00000000be0c',
  apiKeyId: '0b1e5c4d-0000-4000-8000-0000000000a1',
  apiKey: 'bench-secret-0123456789abcdef',
}

/**
 * The Node flags `npm start` gives the server (package.json's start script), then the extra ones of
 * BENCH_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`): Floe runs as a user starts it, and
 * the baselines get the same flags.
 */
export function serverNodeFlags() {
  const start = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    .scripts.start
  const flags = /\bnode ((?:--\S+ )*)dist\/floe\.mjs\b/.exec(start)?.[1] ?? ''
  return [...flags.split(' '), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ')].filter(
    (f) => f !== '',
  )
}

export async function freePort() {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function waitForHealth(url, child) {
  let exited = null
  child.once('exit', (code) => (exited = code))
  for (let attempt = 0; attempt < 600; attempt++) {
    if (exited !== null) throw new Error(`server exited with ${exited}`)
    try {
      if ((await fetch(`${url}/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${url} never answered /health`)
}

/** The CPU time a process has used so far (user + system), in ms; Linux only (`/proc`). */
export function cpuMillis(pid) {
  return cpuMillisOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
}

/** User and system CPU time in a `/proc/…/stat` text, in milliseconds. */
function cpuMillisOfStat(stat) {
  // Fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticksPerSecond = 100
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
}

/** CPU milliseconds of each of a process's threads so far, by thread id; Linux only. */
export function cpuMillisByThread(pid) {
  const byThread = new Map()
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      byThread.set(
        Number(task),
        cpuMillisOfStat(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')),
      )
    } catch {
      // a thread that ended meanwhile
    }
  }
  return byThread
}

/** CPU milliseconds of a process's main thread (its own id) and of its other threads together; Linux only. */
export function threadCpuMillis(pid) {
  let main = 0
  let others = 0
  for (const [thread, millis] of cpuMillisByThread(pid)) {
    if (thread === pid) main += millis
    else others += millis
  }
  return { main, others }
}

/** A process's resident memory so far, in MB; Linux only (`/proc`). */
export function residentMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024
}

function handle(child, url, cleanup = () => undefined) {
  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      cleanup()
    },
  }
}

/**
 * `floe start` on a fresh embedded database, with the bench's bootstrap credentials. Its output
 * (the banner, then the log) goes to a file, as a server's log would be shipped, and as the
 * baselines' goes to /dev/null: read through a pipe by this process, it took the load generator's
 * thread for every batch of log lines (BENCHMARKS.md, sixteenth pass). `main`: another build's
 * `dist/floe.mjs`; `nodeFlags`: more flags for `node`. The handle also names the output file.
 */
export async function startFloe({
  logLevel = 'info',
  args = [],
  main = MAIN,
  nodeFlags = [],
  env = {},
} = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-'))
  const logDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-log-'))
  // stdout and stderr (where the banner goes, stdout being no terminal) in one file.
  const logFile = path.join(logDir, 'output.log')
  const output = openSync(logFile, 'w')
  // Port 0: the server picks a free port and says which in its banner. A port chosen here and
  // handed over could be taken by another process first, and the bench would load that one.
  const child = spawn(
    process.execPath,
    [
      ...serverNodeFlags(),
      ...nodeFlags,
      main,
      'start',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      logLevel,
      '--no-iglu-central',
      ...args,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        FLOE_DATA_DIR: dataDir,
        FLOE_BOOTSTRAP_ORG_ID: BOOTSTRAP.organizationId,
        FLOE_BOOTSTRAP_API_KEY_ID: BOOTSTRAP.apiKeyId,
        FLOE_BOOTSTRAP_API_KEY: BOOTSTRAP.apiKey,
        ...env,
      },
      stdio: ['ignore', output, output],
    },
  )
  closeSync(output)
  const cleanup = () => {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(logDir, { recursive: true, force: true })
  }
  try {
    return { ...handle(child, await listeningUrl(child, logFile), cleanup), logFile }
  } catch (error) {
    child.kill('SIGKILL')
    cleanup()
    throw error
  }
}

/** The address `floe start` prints once it listens, read from the start of its output file. */
async function listeningUrl(child, logFile) {
  let exited = null
  child.once('exit', (code) => (exited = code))
  const head = Buffer.alloc(64 * 1024)
  for (let attempt = 0; attempt < 6000; attempt++) {
    const fd = openSync(logFile, 'r')
    const length = readSync(fd, head, 0, head.length, 0)
    closeSync(fd)
    const found = /Floe is listening on (\S+)/.exec(head.toString('utf8', 0, length))
    if (found !== null) return found[1]
    if (exited !== null)
      throw new Error(
        `server exited with ${exited} before listening:\n${head.toString('utf8', 0, length)}`,
      )
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('the server did not say where it listens within 60 s')
}

/**
 * The bare Fastify server of `bench/baseline-server.mjs`; `json` is what its JSON route answers;
 * `nodeFlags`: more flags for `node`, as for startFloe.
 */
export async function startBaseline({ logLevel = 'info', json = {}, nodeFlags = [] } = {}) {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [...serverNodeFlags(), ...nodeFlags, BASELINE, '--port', String(port), '--log-level', logLevel],
    {
      env: { PATH: process.env.PATH ?? '', BENCH_BASELINE_JSON: JSON.stringify(json) },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child)
  return handle(child, url)
}

/** An access token for the bench's bootstrap key. */
export async function accessToken(url) {
  const response = await fetch(
    `${url}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}/credentials/v3/token`,
    {
      method: 'POST',
      headers: { 'X-API-Key-Id': BOOTSTRAP.apiKeyId, 'X-API-Key': BOOTSTRAP.apiKey },
    },
  )
  if (!response.ok) throw new Error(`token exchange answered ${response.status}`)
  return (await response.json()).accessToken
}

/** Validates a schema and deploys it to DEV through the registry API. */
export async function deployToDev(url, token, schema) {
  const base = `${url}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}/data-structures/v1`
  const call = async (p, body) => {
    const response = await fetch(`${base}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const answer = await response.json()
    if (response.status !== 201 || answer.success !== true)
      throw new Error(`${p} answered ${response.status}: ${JSON.stringify(answer)}`)
    return answer
  }
  await call('/validation-requests', { data: schema })
  const { vendor, name, format, version } = schema.self
  await call('/deployment-requests', {
    source: 'VALIDATED',
    target: 'DEV',
    vendor,
    name,
    format,
    version,
    message: 'bench',
  })
}
