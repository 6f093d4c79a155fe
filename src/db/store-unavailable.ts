import { isBackendLost } from './backend-loss.js'
import { EmbeddedDatabaseStartError } from './create-db.js'
import { EmbeddedDatabaseStoppedError } from './pglite-thread.js'

/**
 * Whether a statement failed because the database could not be reached or has stopped, not
 * because of the statement: the request may succeed once it is back, so it is answered 503, not
 * as a fault of the server's own (500).
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (
    error instanceof EmbeddedDatabaseStartError ||
    error instanceof EmbeddedDatabaseStoppedError ||
    // The statement that lost the embedded cluster's backend (a PANIC: a disk full, say).
    isBackendLost(error)
  )
    return true
  if (typeof error !== 'object' || error === null) return false
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown }
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || isConnectionState(code))) return true
  // A disk or a memory with no room left: the statement may succeed once there is.
  if (code === DISK_FULL || code === OUT_OF_MEMORY) return true
  // Emscripten's answer when PostgreSQL in PGlite exits; a lost cluster's (EmbeddedDatabaseLostError),
  // in this thread or from the cluster's own, where only its fields cross.
  if (name === 'ExitStatus' || name === 'EmbeddedDatabaseLostError') return true
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))
}

const DISK_FULL = '53100'
const OUT_OF_MEMORY = '53200'

/**
 * Whether a statement failed because the database's disk is full (SQLSTATE 53100, on the error
 * or the error it caused): what a client is told then, as the one thing that makes it succeed.
 */
export function isDiskFull(error: unknown): boolean {
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 5; depth++) {
    if ((at as { code?: unknown }).code === DISK_FULL) return true
    at = (at as { cause?: unknown }).cause
  }
  return false
}

/** A server that cannot be reached, or a connection lost midway (Node's codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
])

/**
 * SQLSTATEs of a server that is not answering statements: class 08 (connection exception), a
 * server shutting down, crashed or starting (57P01–57P03), and no connection slots left (53300).
 */
const isConnectionState = (code: string) =>
  /^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)

/** Errors without a code, as the libraries word them: node-postgres's lost connections and pool waits, PGlite's. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'PGlite is closed',
]
