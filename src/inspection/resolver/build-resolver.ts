import { ConfigError, type InspectionConfig } from '../../config/index.js'
import { createIgluResolver, type IgluResolver } from './iglu-resolver.js'
import { loadResolverConfig, ResolverConfigError } from './resolver-config.js'
import {
  coreSchemasRepository,
  directoryRepository,
  httpRepository,
  type SchemaRepository,
} from './schema-repositories.js'

/**
 * The inspection resolver's repositories, in the order they are tried: Floe's own registry, the
 * core schemas and `--iglu-dir` directories, then HTTP: Iglu Central and its mirror, MICRO_IGLU_REGISTRY_URL, and
 * the repositories of a `--iglu` resolver config.
 */
export function buildResolver(
  config: Pick<
    InspectionConfig,
    | 'igluDirs'
    | 'igluCentralUrl'
    | 'igluCentralMirrorUrl'
    | 'customRegistry'
    | 'resolverConfigFile'
    | 'cacheTtlSeconds'
  >,
  registry: SchemaRepository,
  now: () => number,
): IgluResolver {
  const repositories: SchemaRepository[] = [registry, coreSchemasRepository()]
  config.igluDirs.forEach((dir, index) =>
    repositories.push(
      directoryRepository(dir, { name: `Embedded ${index + 1} (${dir})`, priority: index }),
    ),
  )
  if (config.igluCentralUrl !== null)
    repositories.push(
      httpRepository({
        name: 'Iglu Central',
        uri: config.igluCentralUrl,
        priority: 1,
        kind: 'default',
      }),
    )
  if (config.igluCentralMirrorUrl !== null)
    repositories.push(
      httpRepository({
        name: 'Iglu Central - Mirror 01',
        uri: config.igluCentralMirrorUrl,
        priority: 1,
        kind: 'default',
      }),
    )
  if (config.customRegistry !== null)
    repositories.push(
      httpRepository({
        name: `Custom (${config.customRegistry.url})`,
        uri: config.customRegistry.url,
        apiKey: config.customRegistry.apiKey,
        priority: 0,
      }),
    )
  if (config.resolverConfigFile !== null) {
    try {
      repositories.push(...loadResolverConfig(config.resolverConfigFile))
    } catch (error) {
      // A bad --iglu file stops start-up with the other configuration errors' message.
      if (error instanceof ResolverConfigError) throw new ConfigError([`--iglu: ${error.message}`])
      throw error
    }
  }
  return createIgluResolver({ repositories, cacheTtlMs: config.cacheTtlSeconds * 1000, now })
}
