import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import {
  directoryRepository,
  httpRepository,
  type SchemaRepository,
} from './schema-repositories.js'
import { isJsonObject } from '../../shared/index.js'

/** A resolver configuration file that cannot be used; the message names the problem. */
export class ResolverConfigError extends Error {}

/**
 * The repositories of a Snowplow resolver configuration (`iglu:com.snowplowanalytics.iglu/resolver-config/jsonschema/1-0-x`):
 * `{schema, data: {cacheSize, cacheTtl?, repositories: [{name, priority, vendorPrefixes, connection: {http: {uri, apikey?}} | {embedded: {path}}}]}}`.
 * Embedded paths are taken relative to the file.
 */
/**
 * Where an embedded repository's schemas are: in Snowplow's tools the path is a classpath
 * resource (`/iglu-embedded`), which Floe reads beside the configuration file; an absolute path
 * that is a directory is taken as it is. Neither existing is an error, never a repository that
 * silently resolves nothing.
 */
function embeddedDirectory(file: string, given: string, where: string): string {
  const candidates = [
    ...(path.isAbsolute(given) ? [given] : []),
    path.resolve(path.dirname(file), given.replace(/^\/+/, '')),
  ]
  const found = candidates.find((candidate) => {
    try {
      return statSync(candidate).isDirectory()
    } catch {
      return false
    }
  })
  if (found === undefined)
    throw new ResolverConfigError(
      `${where}: embedded path ${given} is not a directory (looked at ${candidates.join(' and ')})`,
    )
  return found
}

export function loadResolverConfig(file: string): SchemaRepository[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ResolverConfigError(
      `${file}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  const data = isJsonObject(parsed) && isJsonObject(parsed.data) ? parsed.data : parsed
  if (!isJsonObject(data) || !Array.isArray(data.repositories))
    throw new ResolverConfigError(`${file}: expected data.repositories to be an array`)
  const names = new Set<string>()
  return data.repositories.map((entry, index) => {
    const where = `${file}: repositories[${index}]`
    if (!isJsonObject(entry) || typeof entry.name !== 'string' || !isJsonObject(entry.connection))
      throw new ResolverConfigError(`${where} needs a name and a connection`)
    if (names.has(entry.name))
      throw new ResolverConfigError(`${where}: the name ${entry.name} is used twice`)
    names.add(entry.name)
    const priority = typeof entry.priority === 'number' ? entry.priority : 0
    const vendorPrefixes = Array.isArray(entry.vendorPrefixes)
      ? entry.vendorPrefixes.filter((p): p is string => typeof p === 'string')
      : []
    const { http, embedded } = entry.connection
    if (isJsonObject(http) && typeof http.uri === 'string') {
      return httpRepository({
        name: entry.name,
        uri: http.uri,
        apiKey: typeof http.apikey === 'string' ? http.apikey : null,
        priority,
        vendorPrefixes,
      })
    }
    if (isJsonObject(embedded) && typeof embedded.path === 'string') {
      return directoryRepository(embeddedDirectory(file, embedded.path, where), {
        name: entry.name,
        priority,
        vendorPrefixes,
      })
    }
    throw new ResolverConfigError(
      `${where}: connection must be {http: {uri}} or {embedded: {path}}`,
    )
  })
}
