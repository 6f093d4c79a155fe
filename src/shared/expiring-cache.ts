/** One kept answer: `value` may itself be null (a miss worth keeping). */
export interface KeptAnswer<V> {
  readonly value: V
  readonly expires: number
}

/**
 * Answers kept for `ttlMs`, at most `maxEntries` (the oldest written go first). Each write says in
 * which generation its answer was asked: if `forget` or `forgetAll` ran since, it is not kept, so an
 * answer read before an invalidation cannot outlive it.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, KeptAnswer<V>>()
  private currentGeneration = 0

  constructor(
    private readonly options: {
      readonly ttlMs: number
      readonly maxEntries: number
      readonly now: () => number
    },
  ) {}

  /** The generation to pass to `set` for an answer asked now. */
  get generation(): number {
    return this.currentGeneration
  }

  /** The kept answer, or undefined when there is none or it has expired. */
  get(key: string): KeptAnswer<V> | undefined {
    const kept = this.entries.get(key)
    if (kept === undefined) return undefined
    if (kept.expires > this.options.now()) return kept
    this.entries.delete(key)
    return undefined
  }

  /** Keeps `value` for the cache's time, or until `expires` (epoch ms) when given. */
  set(key: string, value: V, askedInGeneration: number, expires?: number): void {
    if (askedInGeneration !== this.currentGeneration) return
    this.entries.delete(key)
    this.entries.set(key, { value, expires: expires ?? this.options.now() + this.options.ttlMs })
    if (this.entries.size > this.options.maxEntries)
      this.entries.delete(this.entries.keys().next().value as string)
  }

  forget(key: string): void {
    this.currentGeneration++
    this.entries.delete(key)
  }

  forgetAll(): void {
    this.currentGeneration++
    this.entries.clear()
  }
}
