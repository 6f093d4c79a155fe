import { parentPort, workerData } from 'node:worker_threads'
import type { Transaction } from '@electric-sql/pglite'
import { errorFields, type ClusterErrorFields } from './cluster-error-fields.js'
import { newPgliteCluster, type PgliteClusterPlace } from './pglite-cluster.js'

// This module runs in the embedded cluster's own thread only (see pglite-thread.ts).

/**
 * What the main thread asks of the cluster. `tx` names a transaction, null: none; a transaction's
 * first statement opens it (`begin`), which saves a round trip between the threads a transaction.
 */
export type ClusterRequest =
  | {
      readonly id: number
      readonly op: 'query'
      readonly sql: string
      readonly params: readonly unknown[] | undefined
      readonly rowMode: 'array' | 'object' | undefined
      readonly tx: number | null
      readonly begin: boolean
    }
  | { readonly id: number; readonly op: 'end'; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: 'close' }

/** How a request ended; id 0 answers the cluster's start. */
export type ClusterReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: ClusterErrorFields }

/** An open transaction: its handle, and how to end it (true: commit). */
interface OpenTransaction {
  readonly handle: Transaction
  readonly end: (commit: boolean) => void
  readonly ended: Promise<unknown>
}

if (parentPort !== null) {
  const port = parentPort
  const pglite = newPgliteCluster(workerData as PgliteClusterPlace)
  /** Transactions by number, each once its first statement opened it (or failed to). */
  const transactions = new Map<number, Promise<OpenTransaction>>()
  const reply = (id: number, work: Promise<unknown>) =>
    work.then(
      (value) => port.postMessage({ id, ok: true, value } satisfies ClusterReply),
      (error: unknown) =>
        port.postMessage({ id, ok: false, error: errorFields(error) } satisfies ClusterReply),
    )

  /** Opens a transaction (PGlite's own: other statements wait for its end) and holds it open. */
  const begin = (): Promise<OpenTransaction> =>
    new Promise<OpenTransaction>((begun, refused) => {
      let end: (commit: boolean) => void = () => undefined
      const ending = new Promise<boolean>((resolve) => (end = resolve))
      const ended = pglite.transaction(async (handle) => {
        begun({ handle, end, ended })
        if (!(await ending)) await handle.rollback()
      })
      ended.catch(refused)
    })

  const finish = async (tx: number, commit: boolean): Promise<void> => {
    const opened = transactions.get(tx)
    transactions.delete(tx)
    if (opened === undefined) throw new Error(`no open transaction ${tx}`)
    const open = await opened
    open.end(commit)
    await open.ended
  }

  /** A statement, in its transaction (opened first if it is the transaction's first) or alone. */
  const run = async (request: Extract<ClusterRequest, { op: 'query' }>) => {
    if (request.tx !== null && request.begin) transactions.set(request.tx, begin())
    const on = request.tx === null ? pglite : (await transactions.get(request.tx))?.handle
    if (on === undefined) throw new Error(`no open transaction ${request.tx}`)
    const { rows, affectedRows, fields } = await on.query(
      request.sql,
      request.params as unknown[] | undefined,
      request.rowMode === undefined ? {} : { rowMode: request.rowMode },
    )
    return { rows, affectedRows, fields }
  }

  port.on('message', (request: ClusterRequest) => {
    switch (request.op) {
      case 'query':
        void reply(request.id, run(request))
        return
      case 'end':
        void reply(request.id, finish(request.tx, request.commit))
        return
      case 'close':
        void reply(request.id, pglite.close()).then(() => port.close())
        return
    }
  })
  void reply(0, pglite.waitReady)
}
