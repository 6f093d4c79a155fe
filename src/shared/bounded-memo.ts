/**
 * Answers of a pure function, remembered by key, at most `capacity` of them: when full, every kept
 * answer is forgotten at once and remembering starts again (cheaper than tracking recency, and
 * enough for the hot paths that use it, where a few values recur).
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>()

  constructor(
    private readonly capacity: number,
    private readonly compute: (key: K) => V,
  ) {}

  get(key: K): V {
    let answer = this.answers.get(key)
    if (answer === undefined) {
      answer = this.compute(key)
      if (this.answers.size >= this.capacity) this.answers.clear()
      this.answers.set(key, answer)
    }
    return answer
  }

  /** Forgets every kept answer. */
  clear(): void {
    this.answers.clear()
  }
}
