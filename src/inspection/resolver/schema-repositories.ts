import { readFile } from 'node:fs/promises'
import path from 'node:path'
import {
  schemaKeyToUri,
  type SchemaKey,
  formatSchemaVer,
  parseJsonExactly,
} from '../../iglu/index.js'
import { CORE_SCHEMAS } from './core-schemas.js'
import { isJsonObject } from '../../shared/index.js'

/** A repository failed (unreachable, bad answer): reported as RepoFailure, unlike a plain miss. */
export class RepositoryFailure extends Error {}

/** One place schemas come from. `lookup` answers null for "not here" and throws RepositoryFailure when it cannot tell. */
export interface SchemaRepository {
  readonly name: string
  /** Lower first, as in Snowplow resolver configs. */
  readonly priority: number
  readonly vendorPrefixes: readonly string[]
  /**
   * Where it stands in the resolver's order (see iglu-resolver.ts): Floe's registry; the user's
   * embedded and HTTP repositories; Floe's bundled core schemas; the default Iglu Central.
   */
  readonly kind: 'registry' | 'embedded' | 'http' | 'core' | 'default'
  /** Whether the resolver may cache answers; the in-process registry keeps its own cache, which its deployments clear. */
  readonly cacheable: boolean
  lookup(key: SchemaKey): Promise<Record<string, unknown> | null>
  /** What `lookup` would answer now, when that is known without waiting (a kept answer); undefined otherwise. */
  peek?(key: SchemaKey): Record<string, unknown> | null | undefined
}

/** Floe's bundled core schemas, always present: the fallback after every repository of the user's. */
export function coreSchemasRepository(): SchemaRepository {
  return {
    name: 'Iglu Client Embedded',
    priority: 0,
    vendorPrefixes: [],
    kind: 'core',
    cacheable: true,
    lookup: async (key) => CORE_SCHEMAS.get(schemaKeyToUri(key)) ?? null,
  }
}

/** A directory laid out as `schemas/<vendor>/<name>/<format>/<M-R-A>` (files without extension, `.json` also tried). */
export function directoryRepository(
  directory: string,
  options: { name?: string; priority?: number; vendorPrefixes?: readonly string[] } = {},
): SchemaRepository {
  return {
    name: options.name ?? `Embedded (${directory})`,
    priority: options.priority ?? 0,
    vendorPrefixes: options.vendorPrefixes ?? [],
    kind: 'embedded',
    cacheable: true,
    async lookup(key) {
      // Schema keys are checked by the caller's pattern (no `/`); a vendor of dots alone could still climb.
      if (key.vendor.startsWith('.')) return null
      const relative = path.join(key.vendor, key.name, key.format, formatSchemaVer(key.version))
      for (const candidate of [
        path.join(directory, 'schemas', relative),
        path.join(directory, relative),
        path.join(directory, 'schemas', `${relative}.json`),
      ]) {
        let text: string
        try {
          text = await readFile(candidate, 'utf8')
        } catch {
          continue
        }
        try {
          const parsed = parseJsonExactly(text)
          if (isJsonObject(parsed)) return parsed
        } catch {
          throw new RepositoryFailure(`${candidate} is not JSON`)
        }
        throw new RepositoryFailure(`${candidate} is not a JSON object`)
      }
      return null
    },
  }
}

/** An Iglu Server or static Iglu repository over HTTP: `GET {uri}/schemas/{vendor}/{name}/{format}/{version}`. */
export function httpRepository(options: {
  name: string
  uri: string
  apiKey?: string | null
  priority?: number
  vendorPrefixes?: readonly string[]
  timeoutMs?: number
  /** `default` for Iglu Central and its mirror, which Floe adds itself: after the bundled schemas. */
  kind?: 'http' | 'default'
}): SchemaRepository {
  const base = options.uri.replace(/\/+$/, '')
  return {
    name: options.name,
    priority: options.priority ?? 0,
    vendorPrefixes: options.vendorPrefixes ?? [],
    kind: options.kind ?? 'http',
    cacheable: true,
    async lookup(key) {
      const url = `${base}/schemas/${key.vendor}/${key.name}/${key.format}/${formatSchemaVer(key.version)}`
      let response: Response
      try {
        response = await fetch(url, {
          headers: options.apiKey ? { apikey: options.apiKey } : {},
          signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
        })
      } catch (error) {
        throw new RepositoryFailure(
          `${url}: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      if (response.status === 404) return null
      if (!response.ok) throw new RepositoryFailure(`${url}: HTTP ${response.status}`)
      try {
        const parsed = parseJsonExactly(await response.text())
        if (isJsonObject(parsed)) return parsed
      } catch {
        // fall through
      }
      throw new RepositoryFailure(`${url}: the answer is not a JSON object`)
    },
  }
}
