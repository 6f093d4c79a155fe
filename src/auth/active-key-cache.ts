import { ExpiringCache } from '../shared/index.js'
import type { ApiKey } from './api-keys.store.js'

const MAX_ENTRIES = 10_000

/**
 * The active keys that the bearer guard asks on every request, kept in this process. Only for a
 * store that no other process can write: an embedded PGlite store (its data directory is locked to
 * one process, see db/data-dir-lock.ts, and one in memory belongs to its process). Every revocation
 * of such a store then goes through a credentials service of this process on the same database
 * handle, which forgets the key before and after writing it: the cache never answers for a revoked
 * key, so it is exact, not eventually consistent, and needs no expiry. A PostgreSQL server may be
 * shared by several instances and the CLI: there the key is read for every request instead.
 */
export interface ActiveKeyCache {
  get(id: string): ApiKey | undefined
  set(id: string, key: ApiKey, generation: number): void
  /** Bumped by `forget`: an answer read before it is not kept. */
  readonly generation: number
  forget(id: string): void
}

const caches = new WeakMap<object, ActiveKeyCache>()

/**
 * One cache per database connection, so that a revocation through any credentials service on it
 * clears the key at once. Views of one connection (`withTables`) share its executor, which is the key.
 */
export function activeKeyCacheFor(db: { getExecutor(): object }): ActiveKeyCache {
  const connection = db.getExecutor()
  let cache = caches.get(connection)
  if (cache === undefined) {
    cache = createActiveKeyCache()
    caches.set(connection, cache)
  }
  return cache
}

export function createActiveKeyCache(maxEntries = MAX_ENTRIES): ActiveKeyCache {
  // Kept until forgotten or pushed out by newer keys: exactness comes from `forget`, not from time.
  const cache = new ExpiringCache<ApiKey>({
    ttlMs: Number.POSITIVE_INFINITY,
    maxEntries,
    now: () => 0,
  })
  return {
    get: (id) => cache.get(id)?.value,
    set: (id, key, asked) => cache.set(id, key, asked),
    get generation() {
      return cache.generation
    },
    forget: (id) => cache.forget(id),
  }
}
