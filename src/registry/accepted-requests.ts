import { randomUUID } from 'node:crypto'
import type { BackgroundTasks } from '../shared/index.js'
import { failedRequestResult, type RequestResult } from './registry-requests.js'
import type { RegistryStore } from './registry.store.js'
import type { PendingWork } from './registry.table.js'

const pendingResult = (id: string): RequestResult => ({
  id,
  completed: false,
  success: false,
  errors: null,
  warnings: null,
  info: null,
  message: 'in progress',
})

/**
 * Asynchronous validation and deployment requests: accepted with their input kept, answered, then
 * done in the background; a failure becomes the final result. `finish` does the work of one.
 */
export function createAcceptedRequests(deps: {
  readonly store: Pick<RegistryStore, 'acceptRequest' | 'finishRequest' | 'unfinishedRequests'>
  readonly background: Pick<BackgroundTasks, 'run'>
  readonly finish: (organizationId: string, id: string, work: PendingWork) => Promise<unknown>
}) {
  const { store } = deps
  /** Accepted requests this process is working on. */
  const working = new Set<string>()

  function finishLater(organizationId: string, id: string, work: PendingWork): void {
    if (working.has(id)) return
    working.add(id)
    deps.background.run(async () => {
      try {
        await deps.finish(organizationId, id, work)
      } catch (error) {
        await store.finishRequest(id, failedRequestResult(id, error))
      } finally {
        working.delete(id)
      }
    })
  }

  return {
    /** Accepts the request now, keeping its input with it, and does the work after answering; the client polls by id. */
    async accept(organizationId: string, work: PendingWork): Promise<RequestResult> {
      const id = randomUUID()
      const pending = pendingResult(id)
      await store.acceptRequest({ id, organizationId, kind: work.kind, result: pending, work })
      finishLater(organizationId, id, work)
      return pending
    },

    /**
     * Finishes the requests that were accepted but not finished when a server stopped (a crash, a
     * kill): run once at start-up. Instances sharing one database may both run a request; the first
     * result stays, and doing a validation or deployment twice changes nothing more.
     */
    async finishInterrupted(): Promise<number> {
      const unfinished = await store.unfinishedRequests()
      for (const request of unfinished)
        finishLater(request.organizationId, request.id, request.work)
      return unfinished.length
    },

    /**
     * Finishes the requests accepted at least `olderThanSeconds` ago (by the database's clock) that
     * no one finished, and that this process is not working on: an instance sharing the database
     * stopped for good with them. Their work takes seconds; run every minute by each instance.
     */
    async finishAbandoned(olderThanSeconds: number): Promise<number> {
      const abandoned = (await store.unfinishedRequests({ olderThanSeconds })).filter(
        (request) => !working.has(request.id),
      )
      for (const request of abandoned) finishLater(request.organizationId, request.id, request.work)
      return abandoned.length
    },
  }
}
