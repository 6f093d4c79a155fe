import { ExpiringCache } from '../expiring-cache.js'
import type { ApiKey } from './api-keys.store.js'

/** How long an answer about a key is trusted: a revocation by another process (the CLI, another instance) shows within it. */
export const ACTIVE_KEY_TTL_MS = 1000
const MAX_ENTRIES = 10_000

/**
 * The active keys that the bearer guard asks on every request, kept briefly.
 * There is one cache per database handle, so that a revocation through any credentials service of
 * this process on that database clears the key at once.
 */
export interface ActiveKeyCache {
  get(id: string): ApiKey | undefined
  set(id: string, key: ApiKey, generation: number): void
  /** Bumped by `forget`: an answer read before it is not kept. */
  readonly generation: number
  forget(id: string): void
}

const caches = new WeakMap<object, ActiveKeyCache>()

export function activeKeyCacheFor(db: object, now: () => number = () => performance.now()): ActiveKeyCache {
  let cache = caches.get(db)
  if (cache === undefined) {
    cache = createActiveKeyCache(now)
    caches.set(db, cache)
  }
  return cache
}

export function createActiveKeyCache(now: () => number, ttlMs = ACTIVE_KEY_TTL_MS): ActiveKeyCache {
  const cache = new ExpiringCache<ApiKey>({ ttlMs, maxEntries: MAX_ENTRIES, now })
  return {
    get: (id) => cache.get(id)?.value,
    set: (id, key, asked) => cache.set(id, key, asked),
    get generation() {
      return cache.generation
    },
    forget: (id) => cache.forget(id),
  }
}
