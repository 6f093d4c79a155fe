/**
 * Work that continues after a request was answered (asynchronous validation and deployment
 * requests). Shutdown waits for it, so an accepted request is never dropped half-done.
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>()

  constructor(private readonly onError: (error: unknown) => void) {}

  run(task: () => Promise<void>): void {
    const promise: Promise<void> = Promise.resolve()
      .then(task)
      .catch(this.onError)
      .finally(() => this.#running.delete(promise))
    this.#running.add(promise)
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running])
  }
}
