import { schemaKeyUri, type SchemaKey } from '../../iglu/index.js'
import type { LookupAttempt } from '../pipeline/iglu-validation.js'
import { RepositoryFailure, type SchemaRepository } from './schema-repositories.js'

export type Resolution =
  | {
      readonly kind: 'found'
      readonly schema: Record<string, unknown>
      readonly repository: string
    }
  | { readonly kind: 'missing'; readonly history: Readonly<Record<string, LookupAttempt>> }

interface CachedAnswer {
  readonly schema: Record<string, unknown> | null
  readonly error: { error: string; message?: string } | null
  readonly attempts: number
  readonly lastAttempt: number
  readonly expires: number
}

/** Most entries kept per repository; the oldest go first. */
const MAX_CACHE_ENTRIES = 5000

/**
 * Tries repositories in order: Floe's registry first, then those whose vendor prefixes match; then
 * the user's embedded before their HTTP ones, Floe's bundled core schemas, and the default Iglu
 * Central; then by priority. Hits and misses of cacheable repositories are kept for `cacheTtlMs`;
 * every miss is reported per repository, as Iglu clients do.
 */
export function createIgluResolver(options: {
  repositories: readonly SchemaRepository[]
  cacheTtlMs: number
  now: () => number
}) {
  /** Answers of cacheable repositories, by schema URI, one map per repository (no joined keys to build and hash). */
  const caches = new Map<SchemaRepository, Map<string, CachedAnswer>>()
  const cacheOf = (repository: SchemaRepository) => {
    let cache = caches.get(repository)
    if (cache === undefined) {
      cache = new Map()
      caches.set(repository, cache)
    }
    return cache
  }
  const kindRank = { registry: 0, embedded: 1, http: 2, core: 3, default: 4 } as const

  /** The order depends only on which vendor prefixes match: kept per vendor, for the vendors seen first. */
  const orders = new Map<string, SchemaRepository[]>()

  function ordered(vendor: string): SchemaRepository[] {
    let order = orders.get(vendor)
    if (order === undefined) {
      order = sortFor(vendor)
      if (orders.size < MAX_CACHE_ENTRIES) orders.set(vendor, order)
    }
    return order
  }

  function sortFor(vendor: string): SchemaRepository[] {
    const matches = (r: SchemaRepository) =>
      r.vendorPrefixes.some((prefix) => vendor.startsWith(prefix))
    return [...options.repositories].sort(
      (a, b) =>
        (a.kind === 'registry' ? 0 : 1) - (b.kind === 'registry' ? 0 : 1) ||
        Number(matches(b)) - Number(matches(a)) ||
        kindRank[a.kind] - kindRank[b.kind] ||
        a.priority - b.priority,
    )
  }

  /** The cached answer while it has not expired. */
  const fresh = (answer: CachedAnswer | undefined, now: number) =>
    answer !== undefined && answer.expires > now ? answer : undefined

  async function ask(
    repository: SchemaRepository,
    key: SchemaKey,
    uri: string,
  ): Promise<CachedAnswer> {
    const cache = repository.cacheable ? cacheOf(repository) : null
    const now = options.now()
    const cached = cache?.get(uri)
    const kept = fresh(cached, now)
    if (kept !== undefined) return kept
    let answer: CachedAnswer
    try {
      const schema = await repository.lookup(key)
      answer = {
        schema,
        error: schema === null ? { error: 'NotFound' } : null,
        attempts: (cached?.attempts ?? 0) + 1,
        lastAttempt: now,
        expires: now + options.cacheTtlMs,
      }
    } catch (error) {
      const message = error instanceof RepositoryFailure ? error.message : String(error)
      answer = {
        schema: null,
        error: { error: 'RepoFailure', message },
        attempts: (cached?.attempts ?? 0) + 1,
        lastAttempt: now,
        expires: now + options.cacheTtlMs,
      }
    }
    if (cache !== null) {
      cache.delete(uri)
      cache.set(uri, answer)
      if (cache.size > MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string)
    }
    return answer
  }

  return {
    /**
     * The schema, without waiting, when every repository before the one that has it can answer at
     * once (an unexpired cached answer, or a peek); undefined when one would have to be asked, and
     * for misses (their history is built by {@link resolve}). Gives what `resolve` would give now.
     */
    resolveKnown(key: SchemaKey): Resolution | undefined {
      const uri = schemaKeyUri(key)
      const now = options.now()
      for (const repository of ordered(key.vendor)) {
        const schema = repository.cacheable
          ? fresh(caches.get(repository)?.get(uri), now)?.schema
          : repository.peek?.(key)
        if (schema === undefined) return undefined
        if (schema !== null) return { kind: 'found', schema, repository: repository.name }
      }
      return undefined
    },

    async resolve(key: SchemaKey): Promise<Resolution> {
      const uri = schemaKeyUri(key)
      // The misses before a hit are only written out when every repository misses.
      const misses: [string, CachedAnswer][] = []
      for (const repository of ordered(key.vendor)) {
        const answer = await ask(repository, key, uri)
        if (answer.schema !== null)
          return { kind: 'found', schema: answer.schema, repository: repository.name }
        misses.push([repository.name, answer])
      }
      const history: Record<string, LookupAttempt> = {}
      for (const [name, answer] of misses) {
        history[name] = {
          errors: answer.error === null ? [] : [answer.error],
          attempts: answer.attempts,
          lastAttempt: new Date(answer.lastAttempt).toISOString(),
        }
      }
      const sorted = Object.fromEntries(
        Object.entries(history).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      )
      return { kind: 'missing', history: sorted }
    },

    /**
     * The schema from the repositories other than Floe's registry (the core schemas, the
     * configured ones, Iglu Central), in the resolver's order; null when none has it, or none
     * could answer. The registry is asked elsewhere, per organization.
     */
    async resolveOutsideRegistry(key: SchemaKey): Promise<Record<string, unknown> | null> {
      const uri = schemaKeyUri(key)
      for (const repository of ordered(key.vendor)) {
        if (repository.kind === 'registry') continue
        const answer = await ask(repository, key, uri)
        if (answer.schema !== null) return answer.schema
      }
      return null
    },

    /** Forgets every cached answer. */
    clear(): void {
      caches.clear()
    },
  }
}

export type IgluResolver = ReturnType<typeof createIgluResolver>
