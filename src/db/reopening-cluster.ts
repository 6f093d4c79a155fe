import type { PGlite as KyselyPGlite, PGliteTransaction } from 'kysely'
import { EmbeddedDatabaseLostError, isBackendLost } from './backend-loss.js'

/** What the store says of its cluster's loss and reopening, for the server's log. */
export interface ClusterNotice {
  readonly level: 'error' | 'warn' | 'info'
  readonly message: string
}

export interface ReopeningOptions {
  /** A new cluster on the same folder, starting. */
  readonly open: () => KyselyPGlite
  /** Null when a reopening may be tried now; else why not (a disk with no room to recover on). */
  readonly whyNotReopen: () => Promise<string | null>
  /**
   * How long after a refused reopening (no room) the next may be tried, in ms; after a failed one
   * (the cluster did not start), twice as long as after the failure before it, up to `maxRetryMs`.
   */
  readonly retryMs: number
  readonly maxRetryMs: number
  readonly notify: (notice: ClusterNotice) => void
}

const lostBackend = (error: unknown) =>
  isBackendLost(error) || (error as { name?: unknown } | null)?.name === 'EmbeddedDatabaseLostError'

/**
 * A lost cluster let go without a message to its backend: its thread ended as it is (its close
 * could wait for a lock that a failed transaction holds there), or its WebAssembly closed, which
 * sends nothing once lost (no shutdown checkpoint).
 */
async function letGo(cluster: KyselyPGlite): Promise<void> {
  const lost = cluster as KyselyPGlite & { abandon?: () => Promise<void> }
  await (lost.abandon?.() ?? lost.close()).catch(() => undefined)
}

/**
 * An embedded cluster that is opened again on its folder once its backend was lost (a PANIC, see
 * backend-loss.ts): the lost one is never sent another statement, statements are refused with an
 * EmbeddedDatabaseLostError (503) meanwhile, and the first statement after it starts a reopening
 * that it and those after it wait for. PostgreSQL recovers the folder from its WAL as after a
 * crash: every committed transaction is kept. A reopening that the disk has no room for is tried
 * again `retryMs` later; one that fails (a disk that says it has room but refuses writes, such as
 * a quota) after a wait that doubles with each failure in a row: a failed start holds its thread
 * ~0.2 s (measured), and a disk that refuses writes now likely refuses them a minute later.
 */
export class ReopeningCluster implements KyselyPGlite {
  #current: KyselyPGlite
  #lost: EmbeddedDatabaseLostError | null = null
  #reopening: Promise<KyselyPGlite> | null = null
  #nextAttemptAt = 0
  /** Reopenings in a row that failed to start a cluster. */
  #failures = 0

  constructor(private readonly options: ReopeningOptions) {
    this.#current = options.open()
  }

  get closed(): boolean {
    return this.#current.closed
  }
  get ready(): boolean {
    return this.#lost === null && this.#current.ready
  }
  get waitReady(): Promise<void> {
    return this.#current.waitReady
  }

  query<T>(sql: string, params?: unknown[], options?: Parameters<KyselyPGlite['query']>[2]) {
    return this.#on((cluster) => cluster.query<T>(sql, params, options))
  }

  async transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T> {
    let cluster: KyselyPGlite
    try {
      cluster = await this.#cluster()
    } catch (error) {
      // Kysely's transaction waits for its callback to be called, then for its first statement:
      // refused there, the transaction ends as any failed one does (not called, it waited forever).
      return callback({ query: () => Promise.reject(error), rollback: async () => undefined })
    }
    return this.#run(cluster, () => cluster.transaction(callback))
  }

  async close(): Promise<void> {
    if (this.#lost === null) await this.#current.close()
    else await letGo(this.#current)
  }

  async #on<T>(run: (cluster: KyselyPGlite) => Promise<T>): Promise<T> {
    // Every statement comes here: one not waiting for a reopening waits for nothing else.
    const cluster = this.#lost === null ? this.#current : await this.#reopen()
    return this.#run(cluster, () => run(cluster))
  }

  /** The cluster to run on: the current one, or the one opened again after a loss. */
  #cluster(): Promise<KyselyPGlite> {
    return this.#lost === null ? Promise.resolve(this.#current) : this.#reopen()
  }

  /** Runs `work` on `cluster`, noting its loss when the work is what lost it. */
  async #run<T>(cluster: KyselyPGlite, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if (cluster === this.#current && this.#lost === null && lostBackend(error)) {
        this.#lost =
          error instanceof EmbeddedDatabaseLostError ? error : new EmbeddedDatabaseLostError(error)
        this.options.notify({
          level: 'error',
          message: `${this.#lost.message}; its statements are answered 503 until it is opened again, which the next statement tries once its disk has room`,
        })
      }
      throw error
    }
  }

  #reopen(): Promise<KyselyPGlite> {
    if (this.#reopening !== null) return this.#reopening
    const lost = this.#lost as EmbeddedDatabaseLostError
    if (Date.now() < this.#nextAttemptAt) return Promise.reject(lost)
    this.#reopening = this.#attempt(lost).finally(() => {
      this.#reopening = null
    })
    return this.#reopening
  }

  async #attempt(lost: EmbeddedDatabaseLostError): Promise<KyselyPGlite> {
    const refused = (why: string, waitMs: number) => {
      this.#nextAttemptAt = Date.now() + waitMs
      this.options.notify({
        level: 'warn',
        message: `the embedded database was not opened again: ${why}; next try in ${Math.round(waitMs / 1000)} s at the earliest`,
      })
      return new EmbeddedDatabaseLostError(`${lost.message}; not opened again: ${why}`)
    }
    const why = await this.options.whyNotReopen()
    if (why !== null) throw refused(why, this.options.retryMs)
    await letGo(this.#current)
    const started = performance.now()
    const next = this.options.open()
    try {
      await next.waitReady
    } catch (error) {
      await next.close().catch(() => undefined)
      const waitMs = Math.min(this.options.retryMs * 2 ** this.#failures, this.options.maxRetryMs)
      this.#failures++
      throw refused(error instanceof Error ? error.message : String(error), waitMs)
    }
    this.#current = next
    this.#lost = null
    this.#failures = 0
    this.options.notify({
      level: 'info',
      message: `the embedded database was opened again in ${Math.round(performance.now() - started)} ms, its committed transactions recovered`,
    })
    return next
  }
}
