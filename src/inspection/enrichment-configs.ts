import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  ConfigError,
  parseHoconText,
  unknownFlagEnrichment,
  type FlagEnrichment,
} from '../config/index.js'
import { BUILDERS, FLAG_DEFAULTS, SP, type EnrichmentDeps } from './enrichment-builders.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import { isJsonObject } from '../shared/index.js'

const CONFIG_SCHEMA =
  /^iglu:(com\.snowplowanalytics\.snowplow(?:\.enrichments)?)\/([a-z_]+)\/jsonschema\/(\d+)-\d+-\d+$/

export interface EnrichmentSources {
  /** A directory of configuration files (`*.json`, `*.hocon`, `*.js`), or null. */
  readonly directory: string | null
  /** `--enrich` names, each enabled with its typical configuration unless the directory configures it. */
  readonly enable: readonly string[]
  /** `--geo-db`: a GeoIP2/GeoLite2 City file for ip_lookups, unless the directory configures ip_lookups. */
  readonly geoDatabase: string | null
}

/** The file names of a directory's configurations: JSON or HOCON, as Micro reads them, and scripts. */
const CONFIG_FILE = /\.(json|hocon|js)$/

/** A file's configuration: a script as the javascript_script_config it is, else its JSON or HOCON. */
async function readConfig(where: string): Promise<unknown> {
  // A script file is a javascript_script_config of its own (as in Micro), with no config.
  if (where.endsWith('.js'))
    return {
      schema: `iglu:${SP}/javascript_script_config/jsonschema/1-0-0`,
      data: {
        vendor: SP,
        name: 'javascript_script_config',
        enabled: true,
        parameters: { script: readFileSync(where).toString('base64') },
      },
    }
  const text = readFileSync(where, 'utf8')
  if (where.endsWith('.json')) return JSON.parse(text)
  return parseHoconText(text)
}

/** The configurations of a directory: `[where, name, schema, data]` for each readable, supported one. */
async function readDirectory(
  directory: string,
  problems: string[],
  warnings: string[],
): Promise<[string, string, string, Record<string, unknown>][]> {
  let names: string[]
  try {
    names = readdirSync(directory).sort()
  } catch (error) {
    throw new ConfigError([
      `--enrichments ${directory}: ${error instanceof Error ? error.message : String(error)}`,
    ])
  }
  const files = names.filter((f) => CONFIG_FILE.test(f))
  // Assets beside the configurations (GeoIP databases, folders) are theirs to name: only a name
  // that looks meant as a configuration (`A.JSON`, `x.conf`) is worth a warning.
  const meantAsConfig = (f: string) => /\.(json|hocon|conf|js)$/i.test(f) && !CONFIG_FILE.test(f)
  for (const other of names.filter(meantAsConfig))
    warnings.push(
      `${path.join(directory, other)}: not read (enrichment configurations end in .json or .hocon, scripts in .js)`,
    )
  const read = await Promise.all(
    files.map(async (file) => {
      const where = path.join(directory, file)
      try {
        return { where, config: await readConfig(where) }
      } catch (error) {
        problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
        return null
      }
    }),
  )
  return read.flatMap((entry): [string, string, string, Record<string, unknown>][] => {
    if (entry === null) return []
    const { where, config } = entry
    const match =
      isJsonObject(config) && typeof config.schema === 'string'
        ? CONFIG_SCHEMA.exec(config.schema)
        : null
    if (!isJsonObject(config) || match === null || !isJsonObject(config.data)) {
      problems.push(
        `${where}: expected {"schema": "iglu:com.snowplowanalytics.snowplow/<enrichment>/jsonschema/M-R-A", "data": {...}}`,
      )
      return []
    }
    const name = match[2] ?? ''
    if (!Object.hasOwn(BUILDERS, name) && config.data.enabled === false) {
      // Switched off, as in Snowplow's example directories: nothing to run, so nothing to refuse.
      warnings.push(
        `${where}: the ${name} enrichment is not supported by Floe; it is disabled, and skipped`,
      )
      return []
    }
    if (!Object.hasOwn(BUILDERS, name)) {
      problems.push(
        `${where}: the ${name} enrichment is not supported by Floe (supported: ${Object.keys(BUILDERS).join(', ')})`,
      )
      return []
    }
    return [[where, name, config.schema as string, config.data]]
  })
}

/**
 * The enrichments of a directory of Snowplow enrichment configuration files (and `*.js` scripts), each validated against
 * its schema through the resolver, then those enabled by flags with their typical configuration.
 * Disabled ones are skipped; unsupported, invalid or unreadable ones stop start-up with every
 * problem listed.
 */
export async function loadEnrichments(
  sources: EnrichmentSources,
  iglu: IgluValidation,
  deps: EnrichmentDeps,
): Promise<{
  enrichments: Enrichments
  enabled: string[]
  warnings: string[]
  /** Closes what the enrichments opened (the SQL enrichment's database pool). */
  close: () => Promise<void>
}> {
  const closers: (() => Promise<void>)[] = []
  const close = async () => {
    await Promise.allSettled(closers.splice(0).map((c) => c()))
  }
  const problems: string[] = []
  const warnings: string[] = []
  let enrichments: Enrichments = {}
  const enabled: string[] = []
  const configured = new Set<string>()
  const build = async (
    where: string,
    name: string,
    schema: string,
    data: Record<string, unknown>,
    directory: string,
  ) => {
    try {
      const parameters = isJsonObject(data.parameters) ? data.parameters : {}
      const built = await BUILDERS[name]?.(parameters, {
        schema,
        data,
        directory,
        warnings,
        where,
        deps,
        onClose: (c) => closers.push(c),
      })
      // Every script runs, in the order configured; another enrichment configured twice keeps the last.
      const javascript = [...(enrichments.javascript ?? []), ...(built?.javascript ?? [])]
      enrichments = {
        ...enrichments,
        ...built,
        ...(javascript.length === 0 ? {} : { javascript }),
      }
      enabled.push(name)
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  for (const [where, name, schema, data] of sources.directory === null
    ? []
    : await readDirectory(sources.directory, problems, warnings)) {
    configured.add(name)
    const verdict = await iglu.validate(schema, data)
    if (verdict.kind === 'invalid')
      problems.push(
        `${where}: invalid against ${schema}: ${JSON.stringify(verdict.error).slice(0, 500)}`,
      )
    else if (data.enabled !== false)
      await build(where, name, schema, data, sources.directory ?? '.')
  }
  for (const name of new Set(sources.enable)) {
    // loadConfig refuses unknown names first; a configuration built in code is checked here.
    const defaults = Object.hasOwn(FLAG_DEFAULTS, name)
      ? FLAG_DEFAULTS[name as FlagEnrichment]
      : undefined
    if (defaults === undefined) problems.push(unknownFlagEnrichment(name))
    else if (configured.has(name))
      warnings.push(`--enrich ${name}: the enrichments directory configures it, and wins`)
    else
      await build(
        `--enrich ${name}`,
        name,
        defaults.schema,
        { enabled: true, parameters: defaults.parameters },
        process.cwd(),
      )
  }
  if (sources.geoDatabase !== null) {
    const geo = {
      database: path.basename(sources.geoDatabase),
      uri: pathToFileURL(path.dirname(path.resolve(sources.geoDatabase))).href,
    }
    if (configured.has('ip_lookups'))
      warnings.push('--geo-db: the enrichments directory configures ip_lookups, and wins')
    else
      await build(
        `--geo-db ${sources.geoDatabase}`,
        'ip_lookups',
        `iglu:${SP}/ip_lookups/jsonschema/2-0-1`,
        { enabled: true, parameters: { geo } },
        process.cwd(),
      )
  }
  if (problems.length > 0) {
    await close()
    throw new ConfigError(problems)
  }
  return { enrichments, enabled, warnings, close }
}
