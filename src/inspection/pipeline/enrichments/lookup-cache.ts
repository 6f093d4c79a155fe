import { LRUCache } from 'lru-cache'

/**
 * The cache of the SQL query and API request enrichments, as Enrich keeps it: at most `size`
 * lookups, the least recently used forgotten first, each trusted for `ttl` seconds counted in
 * whole seconds (so `ttl: 0` reuses a lookup within the same second only). A failed lookup is
 * kept too, for a tenth of the ttl. When a lookup fails where an earlier one succeeded, the earlier
 * answer is served instead of the failure. Identical lookups in flight at once share one call.
 */

export type LookupResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string }

interface Entry<T> {
  readonly result: LookupResult<T>
  /** Whole seconds. */
  readonly storedAt: number
  /** The last successful answer, kept with a failure that replaced it. */
  readonly lastSuccess: LookupResult<T> | null
}

export interface LookupCache<T> {
  /** The cached answer for `key`, or `lookup()`'s (then cached). */
  get(key: string, lookup: () => Promise<LookupResult<T>>): Promise<LookupResult<T>>
}

/** A lookup that rejects fails with its message. */
async function safely<T>(lookup: () => Promise<LookupResult<T>>): Promise<LookupResult<T>> {
  try {
    return await lookup()
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
}

export function createLookupCache<T>(options: {
  readonly size: number
  readonly ttlSeconds: number
  /** Epoch milliseconds. */
  readonly now: () => number
  /** Bounds the answers kept by their total weight too (bytes, say): the least recently used go first. */
  readonly weight?: { readonly of: (value: T) => number; readonly max: number }
}): LookupCache<T> {
  const inFlight = new Map<string, Promise<LookupResult<T>>>()
  if (options.size <= 0) return { get: (_key, lookup) => safely(lookup) }
  const { weight } = options
  const weightOf = (result: LookupResult<T> | null) =>
    weight !== undefined && result?.ok === true ? weight.of(result.value) : 0
  const entries = new LRUCache<string, Entry<T>>({
    max: options.size,
    ...(weight === undefined
      ? {}
      : {
          maxSize: weight.max,
          // An answer heavier than the whole bound is not kept at all.
          sizeCalculation: (entry: Entry<T>) =>
            Math.max(1, weightOf(entry.result) + weightOf(entry.lastSuccess)),
        }),
  })
  const seconds = () => Math.floor(options.now() / 1000)
  const fresh = (entry: Entry<T>) =>
    seconds() - entry.storedAt <=
    (entry.result.ok ? options.ttlSeconds : Math.floor(options.ttlSeconds / 10))
  const served = (entry: Entry<T>) => entry.lastSuccess ?? entry.result

  async function refresh(
    key: string,
    lookup: () => Promise<LookupResult<T>>,
  ): Promise<LookupResult<T>> {
    const earlier = entries.get(key)
    const result = await safely(lookup)
    const lastSuccess = result.ok
      ? null
      : earlier === undefined
        ? null
        : earlier.result.ok
          ? earlier.result
          : earlier.lastSuccess
    const entry = { result, storedAt: seconds(), lastSuccess }
    entries.set(key, entry)
    return served(entry)
  }

  return {
    get(key, lookup) {
      const entry = entries.get(key)
      if (entry !== undefined && fresh(entry)) return Promise.resolve(served(entry))
      const pending = inFlight.get(key)
      if (pending !== undefined) return pending
      const started = refresh(key, lookup).finally(() => inFlight.delete(key))
      inFlight.set(key, started)
      return started
    },
  }
}
