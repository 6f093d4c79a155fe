import { ExpiringCache } from '../shared/index.js'

/** Most schemas kept; the oldest go first. */
const MAX_ENTRIES = 5000

/**
 * Deployed schemas read often (by the collector for every event, by registry clients), kept `ttlMs`;
 * misses too when `keepMisses`. A deployment in this instance calls `invalidate`, so it is seen by
 * the very next lookup; deployments by other instances sharing the database show within the TTL.
 * A lookup that throws keeps nothing.
 */
export function createDeployedSchemaCache<
  K,
  Schema extends object = Record<string, unknown>,
>(deps: {
  find: (key: K) => Promise<Schema | null>
  keyOf: (key: K) => string
  ttlMs: number
  now: () => number
  keepMisses: boolean
  maxEntries?: number
}) {
  const cache = new ExpiringCache<Schema | null>({
    ttlMs: deps.ttlMs,
    maxEntries: deps.maxEntries ?? MAX_ENTRIES,
    now: deps.now,
  })

  return {
    async lookup(key: K): Promise<Schema | null> {
      const id = deps.keyOf(key)
      const kept = cache.get(id)
      if (kept !== undefined) return kept.value
      const asked = cache.generation
      const schema = await deps.find(key)
      if (schema !== null || deps.keepMisses) cache.set(id, schema, asked)
      return schema
    },

    /** The kept answer for `key`, without asking the database: undefined when none is kept. */
    peek(key: K): Schema | null | undefined {
      return cache.get(deps.keyOf(key))?.value
    },

    /** Until when (epoch ms) the answer kept for `key` is kept: undefined when none is. */
    keptUntil(key: K): number | undefined {
      return cache.get(deps.keyOf(key))?.expires
    },

    /** Forgets every answer, including the lookups under way. */
    invalidate(): void {
      cache.forgetAll()
    },
  }
}

export type DeployedSchemaCache<K> = ReturnType<typeof createDeployedSchemaCache<K>>
