// What a worker process and its pool say to each other over the IPC channel (structured clones:
// `serialization: 'advanced'`). This module is loaded by both sides and imports nothing.

/** The pool to a process: one task to run. */
export interface TaskMessage<T> {
  readonly id: number
  readonly task: T
}

/** A process to its pool. */
export type ProcessMessage<A> =
  /** The process has loaded its code and takes tasks. */
  | { readonly kind: 'ready' }
  /** The process has taken the task: its running time counts from here. */
  | { readonly kind: 'started'; readonly id: number }
  | { readonly kind: 'answer'; readonly id: number; readonly answer: A }
  /** The task threw (or its answer could not cross): the message of what it threw. */
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }

const messageOf = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error)

/**
 * Makes this process a worker of a `ProcessPool`: each task the pool sends is handed to `handle`,
 * one at a time, and its answer (or what it threw) sent back. The process ends when its pool goes
 * (the channel closes), so that a server killed outright leaves no worker behind.
 */
export function serveTasks<T, A>(handle: (task: T) => A): void {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error('a worker process is started by its pool, with IPC')
  process.on('disconnect', () => process.exit(0))
  process.on('message', (message: TaskMessage<T>) => {
    const { id, task } = message
    send({ kind: 'started', id } satisfies ProcessMessage<A>)
    let reply: ProcessMessage<A>
    try {
      reply = { kind: 'answer', id, answer: handle(task) }
    } catch (error) {
      reply = { kind: 'failed', id, message: messageOf(error) }
    }
    try {
      send(reply)
    } catch (error) {
      send({ kind: 'failed', id, message: `the answer could not be sent: ${messageOf(error)}` })
    }
  })
  send({ kind: 'ready' } satisfies ProcessMessage<A>)
}
