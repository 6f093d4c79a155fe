import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    const holder =
      pid === null
        ? 'another process'
        : pid === process.pid
          ? `process ${pid} (this one)`
          : `process ${pid}`
    super(
      `The data directory ${dataDir} is in use by ${holder}. The embedded database allows one process at a time: ` +
        'stop that process first, or set DATABASE_URL to share a PostgreSQL server.',
    )
    this.name = 'DataDirLockedError'
  }
}

/** A data directory that cannot be made or used (a file in its place, no permission). */
export class DataDirUnusableError extends Error {
  constructor(dataDir: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is where it or a folder above it should be'
        : code === 'EACCES' || code === 'EPERM'
          ? 'this user may not create or open it'
          : ((cause as Error).message ?? String(cause))
    super(
      `The data directory ${dataDir} cannot be used: ${why}${code === undefined ? '' : ` (${code})`}. --data-dir or FLOE_DATA_DIR chooses another.`,
      { cause },
    )
    this.name = 'DataDirUnusableError'
  }
}

export interface DataDirLock {
  /** Gives the directory up; safe to call twice. */
  release(): Promise<void>
}

/**
 * How the lock is held. `socket` (Linux): a listening UNIX socket in the abstract namespace, named
 * after the directory's real path. Binding a name is atomic, a second bind fails with EADDRINUSE, and
 * the kernel frees the name when the process dies, however it dies: no stale lock, no window between
 * a check and a write. `pid-file` (other systems, which have no abstract sockets): the pid file
 * alone, written only if absent, taken over when its process no longer runs (check, then write).
 */
export type LockMechanism = 'socket' | 'pid-file'

export const DEFAULT_LOCK_MECHANISM: LockMechanism =
  process.platform === 'linux' ? 'socket' : 'pid-file'
const PID_FILE = 'floe.pid'

/**
 * Embedded PostgreSQL (PGlite) must be opened by one process only, once, so the server and the CLI
 * take this lock before they open a data directory; a second attempt, from any process (this one
 * included), is refused with {@link DataDirLockedError}, naming the holder's pid. The holder's pid is
 * also written to `floe.pid`, for people and for that message; the file is left behind by a killed
 * process, which is harmless with the socket. Abstract socket names belong to a network namespace:
 * containers sharing one data directory must share their network namespace too to see each other.
 */
export async function lockDataDir(
  dataDir: string,
  mechanism: LockMechanism = DEFAULT_LOCK_MECHANISM,
): Promise<DataDirLock> {
  // A new data directory is its owner's only (an existing one is left as it is; its cluster is closed).
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    if (!fs.statSync(dataDir).isDirectory())
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' })
  } catch (error) {
    throw new DataDirUnusableError(dataDir, error)
  }
  const pidFile = path.join(dataDir, PID_FILE)
  return mechanism === 'socket'
    ? lockWithSocket(dataDir, pidFile)
    : lockWithPidFile(dataDir, pidFile)
}

async function lockWithSocket(dataDir: string, pidFile: string): Promise<DataDirLock> {
  const name = `\0floe-data-dir-${createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex')}`
  // Nothing is served: anyone connecting is hung up on.
  const server = net.createServer((socket) => socket.destroy())
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ path: name }, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new DataDirLockedError(dataDir, readPid(pidFile))
    throw error
  }
  // The lock never keeps the process alive.
  server.unref()
  try {
    writePidFile(pidFile)
  } catch (error) {
    await closeServer(server)
    throw error
  }
  let released: Promise<void> | null = null
  return {
    release: () => {
      released ??= (async () => {
        // The pid file first: once the name is free, another process may write its own.
        removeIfOurs(pidFile)
        await closeServer(server)
      })()
      return released
    },
  }
}

/** Directories this process holds through pid files: the pid file alone cannot tell this process's second attempt from a stale file. */
const heldByPidFile = new Set<string>()

async function lockWithPidFile(dataDir: string, pidFile: string): Promise<DataDirLock> {
  const key = fs.realpathSync(dataDir)
  if (heldByPidFile.has(key)) throw new DataDirLockedError(dataDir, process.pid)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(pidFile, String(process.pid), { flag: 'wx' })
      heldByPidFile.add(key)
      let released = false
      return {
        release: async () => {
          if (released) return
          released = true
          heldByPidFile.delete(key)
          removeIfOurs(pidFile)
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = readPid(pidFile)
      // Our own pid in the file is stale: a container restarted with the same pid, say.
      if (holder !== null && holder !== process.pid && isRunning(holder))
        throw new DataDirLockedError(dataDir, holder)
      fs.rmSync(pidFile, { force: true })
    }
  }
  throw new Error(`could not take the lock file ${pidFile}`)
}

/** Written whole or not at all: a reader never sees half a pid. */
function writePidFile(pidFile: string): void {
  const temporary = `${pidFile}.${process.pid}.tmp`
  fs.writeFileSync(temporary, String(process.pid))
  fs.renameSync(temporary, pidFile)
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

function removeIfOurs(pidFile: string): void {
  if (readPid(pidFile) === process.pid) fs.rmSync(pidFile, { force: true })
}

function readPid(pidFile: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
