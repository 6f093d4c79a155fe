import path from 'node:path'
import { Worker } from 'node:worker_threads'
import type {
  PGlite as KyselyPGlite,
  PGliteQueryOptions,
  PGliteQueryResults,
  PGliteTransaction,
} from 'kysely'
import { BUILD_DIR } from '../package-root.js'
import type { PgliteClusterPlace } from './pglite-cluster.js'
import type { ClusterErrorFields } from './cluster-error-fields.js'
import type { ClusterReply, ClusterRequest } from './pglite-thread.worker.js'

/**
 * An embedded cluster run in a worker thread of its own. PGlite runs each statement on the thread
 * that holds it: on the main thread a vacuum of a filled events' table held the event loop for
 * 60–140 ms, up to ~390 ms with both cores busy, and any long scan for its length. Here the main
 * thread only sends statements and reads their rows, copied between the threads, so no statement
 * holds it. What it costs: a round trip between the threads for each statement (tens of µs) and
 * a thread's start beside PGlite's own. Kysely's PGlite dialect drives it as it drives PGlite;
 * a transaction is PGlite's own, opened in the thread and held there until Kysely ends it.
 */

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void }
/** A request before it is numbered. */
type Unnumbered<R> = R extends unknown ? Omit<R, 'id'> : never

const workerFile = () => path.join(BUILD_DIR, 'db', 'pglite-thread.worker.js')

/** A statement's error as the thread reported it: the same message, name, `code`, `constraint`. */
function errorOf(fields: ClusterErrorFields): Error {
  const error = new Error(String(fields.message))
  Object.assign(error, fields)
  return error
}

/** The cluster's thread is gone (it exited, or threw outside a statement): no statement will run. */
export class EmbeddedDatabaseStoppedError extends Error {
  constructor(why: string, cause?: unknown) {
    super(`the embedded database's thread stopped (${why})`, { cause })
    this.name = 'EmbeddedDatabaseStoppedError'
  }
}

export class PgliteThread implements KyselyPGlite {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private nextTransaction = 1
  private stopped: Error | null = null
  ready = false
  closed = false
  readonly waitReady: Promise<void>

  constructor(place: PgliteClusterPlace) {
    this.worker = new Worker(workerFile(), { workerData: place })
    let started: Pending = { resolve: () => undefined, reject: () => undefined }
    this.waitReady = new Promise<void>((resolve, reject) => {
      started = { resolve: () => resolve(), reject }
    })
    // Until someone waits for it, a failed start must not count as unhandled.
    this.waitReady.catch(() => undefined)
    this.pending.set(0, started)
    this.worker.on('message', (reply: ClusterReply) => {
      const waiting = this.pending.get(reply.id)
      if (waiting === undefined) return
      this.pending.delete(reply.id)
      if (reply.id === 0 && reply.ok) this.ready = true
      if (reply.ok) waiting.resolve(reply.value)
      else waiting.reject(errorOf(reply.error))
    })
    this.worker.on('error', (error) =>
      this.stop(new EmbeddedDatabaseStoppedError(error.message, error)),
    )
    this.worker.on('exit', (code) =>
      this.stop(new EmbeddedDatabaseStoppedError(`exit code ${code}`)),
    )
  }

  /** Every statement waiting, and every later one, fails with `error`: the thread is gone. */
  private stop(error: Error): void {
    this.stopped ??= error
    this.closed = true
    for (const waiting of this.pending.values()) waiting.reject(this.stopped)
    this.pending.clear()
  }

  private ask<T>(request: Unnumbered<ClusterRequest>): Promise<T> {
    if (this.stopped !== null) return Promise.reject(this.stopped)
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      try {
        this.worker.postMessage({ ...request, id } as ClusterRequest)
      } catch (error) {
        // A parameter that cannot be copied to another thread (a function): this statement fails.
        this.pending.delete(id)
        reject(error as Error)
      }
    })
  }

  private queryOn<T>(
    tx: number | null,
    sql: string,
    params: unknown[] | undefined,
    options: PGliteQueryOptions | undefined,
    begin = false,
  ): Promise<PGliteQueryResults<T>> {
    return this.ask({ op: 'query', sql, params, rowMode: options?.rowMode, tx, begin })
  }

  query<T>(
    sql: string,
    params?: unknown[],
    options?: PGliteQueryOptions,
  ): Promise<PGliteQueryResults<T>> {
    return this.queryOn<T>(null, sql, params, options)
  }

  async transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T> {
    const tx = this.nextTransaction++
    // Opened by its first statement, in the same message; one without statements is never opened.
    let begun = false
    let ended = false
    const end = (commit: boolean): Promise<void> => {
      if (ended || !begun) return Promise.resolve()
      ended = true
      return this.ask({ op: 'end', tx, commit })
    }
    const handle: PGliteTransaction = {
      query: <R>(sql: string, params?: unknown[], options?: PGliteQueryOptions) => {
        const first = !begun
        begun = true
        return this.queryOn<R>(tx, sql, params, options, first)
      },
      rollback: () => end(false),
    }
    let result: T
    try {
      result = await callback(handle)
    } catch (error) {
      await end(false).catch(() => undefined)
      throw error
    }
    await end(true)
    return result
  }

  /**
   * Ends the thread without asking its cluster anything: a lost cluster (backend-loss.ts) may hold
   * a transaction's lock that its close would wait for. Statements waiting fail.
   */
  async abandon(): Promise<void> {
    this.stop(new EmbeddedDatabaseStoppedError('let go after its backend was lost'))
    this.closed = true
    await this.worker.terminate()
  }

  async close(): Promise<void> {
    if (this.closed) return
    try {
      await this.ask({ op: 'close' })
    } finally {
      this.closed = true
      await this.worker.terminate()
    }
  }
}
