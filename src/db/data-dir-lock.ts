import fs from 'node:fs'
import path from 'node:path'

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `The data directory ${dataDir} is in use by process ${pid}. The embedded database allows one process at a time: ` +
        'stop that process first, or set DATABASE_URL to share a PostgreSQL server.',
    )
    this.name = 'DataDirLockedError'
  }
}

export interface DataDirLock {
  release(): void
}

/**
 * Embedded PostgreSQL (PGlite) must be opened by one process only, so the server and the CLI
 * take this lock file before they open a data directory. A lock left by a killed process is
 * taken over, because its pid no longer runs.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, 'floe.pid')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      return { release: () => releaseIfOurs(file) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = Number.parseInt(readOrEmpty(file), 10)
      if (Number.isInteger(holder) && holder !== process.pid && isRunning(holder)) throw new DataDirLockedError(dataDir, holder)
      fs.rmSync(file, { force: true })
    }
  }
  throw new Error(`could not take the lock file ${file}`)
}

function releaseIfOurs(file: string): void {
  if (readOrEmpty(file).trim() === String(process.pid)) fs.rmSync(file, { force: true })
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
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
