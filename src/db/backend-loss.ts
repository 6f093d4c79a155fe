/**
 * PostgreSQL's backend in PGlite after a PANIC or a FATAL error: PostgreSQL would end the process
 * and its postmaster start another, but PGlite's backend lives on in the WebAssembly, and the next
 * message it is given loops forever on the thread that runs it. Measured: a WAL write that found
 * its disk full (`could not write to log file …: No space left on device`, PANIC, SQLSTATE
 * 53100) left the next statement, even `select 1`, spinning the main thread at 100% CPU: the whole
 * server stopped answering, its collector included, until the process was killed.
 */
export function isBackendLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { severity } = error as { severity?: unknown }
  return severity === 'PANIC' || severity === 'FATAL'
}

const STOPPED = 'the embedded database stopped: '

/** The embedded cluster's backend failed for good; its statements are refused until it is reopened. */
export class EmbeddedDatabaseLostError extends Error {
  constructor(cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(why.startsWith(STOPPED) ? why : `${STOPPED}${why}`, { cause })
    this.name = 'EmbeddedDatabaseLostError'
  }
}

type Exchange = (...args: never[]) => unknown

/**
 * The cluster, made to refuse every message after its backend was lost (see isBackendLost):
 * the statement that lost it fails as it did, and every later one, PGlite's own `ROLLBACK` of the
 * transaction it was in and the shutdown's checkpoint included, fails at once with an
 * EmbeddedDatabaseLostError instead of reaching the backend. Every message PGlite sends goes
 * through `execProtocolRawSync`; its errors come out of `execProtocol` and `execProtocolStream`.
 */
export function refusingAfterBackendLoss<Cluster extends object>(pglite: Cluster): Cluster {
  const methods = pglite as unknown as Record<string, Exchange | undefined>
  for (const name of ['execProtocolRawSync', 'execProtocol', 'execProtocolStream'])
    if (typeof methods[name] !== 'function')
      throw new Error(`PGlite changed: it has no ${name} to stop a lost backend at`)
  let lost: EmbeddedDatabaseLostError | null = null
  const refuse = () => {
    throw lost
  }
  const watch = (name: string) => {
    const exchange = (methods[name] as Exchange).bind(pglite) as (
      ...args: unknown[]
    ) => Promise<unknown>
    methods[name] = (async (...args: unknown[]) => {
      if (lost !== null) throw lost
      try {
        return await exchange(...args)
      } catch (error) {
        if (lost === null && isBackendLost(error)) {
          lost = new EmbeddedDatabaseLostError(error)
          methods.execProtocolRawSync = refuse
        }
        throw error
      }
    }) as Exchange
  }
  watch('execProtocol')
  watch('execProtocolStream')
  return pglite
}
