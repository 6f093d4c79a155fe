type Schema = Record<string, unknown>

interface Entry {
  readonly schema: Schema | null
  readonly expires: number
}

/** Most schemas kept; the oldest go first. */
const MAX_ENTRIES = 5000

/**
 * Deployed schemas read often (by the collector for every event, by registry clients), kept `ttlMs`;
 * misses too when `keepMisses`. A deployment in this instance calls `invalidate`, so it is seen by
 * the very next lookup; deployments by other instances sharing the database show within the TTL.
 * A lookup that throws keeps nothing.
 */
export function createDeployedSchemaCache<K>(deps: { find: (key: K) => Promise<Schema | null>; keyOf: (key: K) => string; ttlMs: number; now: () => number; keepMisses: boolean; maxEntries?: number }) {
  const entries = new Map<string, Entry>()
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES
  /** Bumped by `invalidate`: an answer read before it is not kept. */
  let generation = 0

  return {
    async lookup(key: K): Promise<Schema | null> {
      const id = deps.keyOf(key)
      const cached = entries.get(id)
      if (cached !== undefined && cached.expires > deps.now()) return cached.schema
      const asked = generation
      const schema = await deps.find(key)
      if (asked === generation && (schema !== null || deps.keepMisses)) {
        entries.delete(id)
        entries.set(id, { schema, expires: deps.now() + deps.ttlMs })
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
      }
      return schema
    },

    /** Forgets every answer, including the lookups under way. */
    invalidate(): void {
      generation++
      entries.clear()
    },
  }
}

export type DeployedSchemaCache<K> = ReturnType<typeof createDeployedSchemaCache<K>>
