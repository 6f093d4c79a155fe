/**
 * Runs tasks of one key one after the other, in the order they came, and tasks of different keys
 * at once: for work of several steps on one thing (check, then write) that must not interleave
 * with another such work on the same thing within this process.
 */
export class OneAtATimeByKey {
  /** Per key, the settling of the last task queued; gone once that task is done. */
  readonly #tails = new Map<string, Promise<void>>()

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve()
    const result = before.then(task)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.#tails.set(key, tail)
    try {
      return await result
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }

  /** Keys with a task running or waiting. */
  get busyKeys(): number {
    return this.#tails.size
  }
}
