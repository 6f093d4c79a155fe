import { exactJsonText, parseJsonExactly } from '../../iglu/index.js'
import type { EventSpecification } from '../pipeline/steps/check-event-specification.js'
import type { SpecificationSource } from '../specification-index.js'
import type { MessageEnd } from './event-store-wire.js'

/**
 * The inspected organization's event specifications as the inspection thread reads them (see
 * docs/inspection-thread.md): the main thread, which holds the tracking plans, answers each read
 * with the specifications and its revision, and tells the other end of every new revision, so that
 * the thread's index is read again exactly when the main thread's would be. Specifications cross
 * as text, their numbers as written.
 */

type ListRequest = { readonly id: number }
type SpecificationsMessage =
  | {
      readonly kind: 'answer'
      readonly id: number
      readonly text: string
      readonly revision: number
    }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }
  | { readonly kind: 'revision'; readonly revision: number }

/**
 * The main thread's side: answers reads of `source`. `changed()` tells the other end of the
 * source's new revision (call it after each write that changes the tracking plans).
 */
export function serveSpecifications(source: SpecificationSource, end: MessageEnd) {
  const listener = (message: unknown) => {
    const { id } = message as ListRequest
    const revision = source.revision()
    source.list().then(
      (specifications) =>
        end.postMessage({
          kind: 'answer',
          id,
          text: exactJsonText(specifications),
          revision,
        } satisfies SpecificationsMessage),
      (error: unknown) =>
        end.postMessage({
          kind: 'failed',
          id,
          message: error instanceof Error ? error.message : String(error),
        } satisfies SpecificationsMessage),
    )
  }
  end.on('message', listener)
  return {
    changed: () =>
      end.postMessage({
        kind: 'revision',
        revision: source.revision(),
      } satisfies SpecificationsMessage),
    stop: () => end.off('message', listener),
  }
}

/**
 * The inspection thread's side: a `SpecificationSource` whose reads are asked of the other end,
 * and whose revision is the last one the other end told.
 */
export function bridgedSpecifications(
  end: MessageEnd,
  options: { readonly sharedWithOtherInstances: boolean },
): SpecificationSource & { stop(): void } {
  let revision = 0
  let nextId = 1
  const waiting = new Map<
    number,
    { resolve: (specifications: EventSpecification[]) => void; reject: (error: Error) => void }
  >()
  const listener = (message: unknown) => {
    const reply = message as SpecificationsMessage
    if (reply.kind === 'revision') {
      revision = Math.max(revision, reply.revision)
      return
    }
    const pending = waiting.get(reply.id)
    waiting.delete(reply.id)
    if (reply.kind === 'failed') {
      pending?.reject(new Error(reply.message))
      return
    }
    revision = Math.max(revision, reply.revision)
    pending?.resolve(parseJsonExactly(reply.text) as EventSpecification[])
  }
  end.on('message', listener)
  return {
    list: () =>
      new Promise<EventSpecification[]>((resolve, reject) => {
        const id = nextId++
        waiting.set(id, { resolve, reject })
        end.postMessage({ id } satisfies ListRequest)
      }),
    revision: () => revision,
    sharedWithOtherInstances: options.sharedWithOtherInstances,
    stop() {
      end.off('message', listener)
      for (const pending of waiting.values())
        pending.reject(new Error("the tracking plans' thread stopped answering"))
      waiting.clear()
    },
  }
}
