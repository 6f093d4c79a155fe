import { schemaKeyToUri, type SchemaKey } from '../iglu/schema-key.js'

type Schema = Record<string, unknown>

interface Entry {
  readonly schema: Schema | null
  readonly expires: number
}

/** Most schemas kept; the oldest go first. */
const MAX_ENTRIES = 5000

/**
 * The deployed schemas of one registry environment as the collector reads them, for every event:
 * answers (misses too) are kept `ttlMs`. A deployment in this instance calls `invalidate`, so it is
 * seen by the very next lookup; deployments by other instances sharing the database show within the TTL.
 */
export function createPublishedSchemaCache(deps: { find: (key: SchemaKey) => Promise<Schema | null>; ttlMs: number; now: () => number; maxEntries?: number }) {
  const entries = new Map<string, Entry>()
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES
  /** Bumped by `invalidate`: an answer read before it is not kept. */
  let generation = 0

  return {
    async lookup(key: SchemaKey): Promise<Schema | null> {
      const uri = schemaKeyToUri(key)
      const cached = entries.get(uri)
      if (cached !== undefined && cached.expires > deps.now()) return cached.schema
      const asked = generation
      const schema = await deps.find(key)
      if (asked === generation) {
        entries.delete(uri)
        entries.set(uri, { schema, expires: deps.now() + deps.ttlMs })
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

export type PublishedSchemaCache = ReturnType<typeof createPublishedSchemaCache>
