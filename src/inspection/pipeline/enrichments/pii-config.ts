import { isJsonObject } from '../../../shared/index.js'
import type { CanonicalField } from '../canonical-event.js'
import { jsonPathProblem } from './json-path-selection.js'
import { parseSchemaCriterion, type EntityField, type SchemaCriterion } from './lookup-inputs.js'

/**
 * The configuration of the PII pseudonymization enrichment (`pii_enrichment_config` 2-0-x), as
 * Enrich reads it: the atomic fields (`pojo`) and the JSONPaths into matching entities (`json`)
 * whose text values are replaced by a salted hash, with one strategy for all of them. It is
 * checked once, at start-up, so that a bad criterion or a JSONPath that will not compile stops the
 * start instead of failing every event.
 */

/** The atomic fields the configuration may name, in the order of its schema's enum. */
export const PII_SCALAR_FIELDS = [
  'user_id',
  'user_ipaddress',
  'user_fingerprint',
  'domain_userid',
  'network_userid',
  'ip_organization',
  'ip_domain',
  'tr_orderid',
  'ti_orderid',
  'mkt_term',
  'mkt_content',
  'se_category',
  'se_action',
  'se_label',
  'se_property',
  'mkt_clickid',
  'refr_domain_userid',
  'domain_sessionid',
] as const satisfies readonly CanonicalField[]

export type PiiScalarField = (typeof PII_SCALAR_FIELDS)[number]

/** The hash functions of the `pseudonymize` strategy, by the names the configuration gives them. */
export const PII_HASH_FUNCTIONS = ['MD2', 'MD5', 'SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'] as const

export type PiiHashFunction = (typeof PII_HASH_FUNCTIONS)[number]

export const PII_ENTITY_FIELDS: readonly EntityField[] = [
  'contexts',
  'derived_contexts',
  'unstruct_event',
]

/** One `json` entry: a JSONPath into the entities of one field whose schema matches a criterion. */
export interface PiiJsonLocator {
  readonly field: EntityField
  readonly criterion: SchemaCriterion
  readonly path: string
}

export interface PiiConfig {
  /** Atomic fields to pseudonymize, in the order configured. */
  readonly scalars: readonly PiiScalarField[]
  /** Entity values to pseudonymize, in the order configured. */
  readonly json: readonly PiiJsonLocator[]
  readonly hashFunction: PiiHashFunction
  readonly salt: string
  /** 2-0-1: pseudonymize only the events of requests sent with an `SP-Anonymous` header. */
  readonly anonymousOnly: boolean
}

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (list as readonly string[]).includes(value)

/** The checked configuration (the whole `data` of the configuration file), or null with `problems` said. */
export function parsePiiConfig(
  schema: string,
  data: Record<string, unknown>,
  problems: string[],
): PiiConfig | null {
  if (!/\/jsonschema\/2-0-\d+$/.test(schema)) {
    problems.push(
      `${schema} is not supported: Floe, as Enrich, reads pii_enrichment_config 2-0-x (pii and strategy in parameters)`,
    )
    return null
  }
  const parameters = isJsonObject(data.parameters) ? data.parameters : {}
  const strategy = isJsonObject(parameters.strategy) ? parameters.strategy.pseudonymize : undefined
  const hashFunction = isJsonObject(strategy) ? strategy.hashFunction : undefined
  if (!isOneOf(PII_HASH_FUNCTIONS, hashFunction))
    problems.push(
      `parameters.strategy.pseudonymize.hashFunction must be one of ${PII_HASH_FUNCTIONS.join(', ')}`,
    )
  const salt = isJsonObject(strategy) ? strategy.salt : undefined
  if (typeof salt !== 'string') problems.push('parameters.strategy.pseudonymize.salt must be text')
  if (!Array.isArray(parameters.pii)) problems.push('parameters.pii must be an array')
  const scalars: PiiScalarField[] = []
  const json: PiiJsonLocator[] = []
  ;(Array.isArray(parameters.pii) ? parameters.pii : []).forEach((entry: unknown, at) => {
    const where = `parameters.pii[${at}]`
    const pojo = isJsonObject(entry) ? entry.pojo : undefined
    const located = isJsonObject(entry) ? entry.json : undefined
    if ((pojo === undefined) === (located === undefined))
      return void problems.push(`${where}: give exactly one of pojo and json`)
    if (pojo !== undefined) {
      const field = isJsonObject(pojo) ? pojo.field : undefined
      if (!isOneOf(PII_SCALAR_FIELDS, field))
        return void problems.push(
          `${where}.pojo.field: The specified pojo field ${JSON.stringify(field)} is not supported (one of ${PII_SCALAR_FIELDS.join(', ')})`,
        )
      return void scalars.push(field)
    }
    const locator = parseLocator(located, `${where}.json`, problems)
    if (locator !== null) json.push(locator)
  })
  if (problems.length > 0) return null
  return {
    scalars,
    json,
    hashFunction: hashFunction as PiiHashFunction,
    salt: salt as string,
    anonymousOnly: data.anonymousOnly === true,
  }
}

function parseLocator(value: unknown, where: string, problems: string[]): PiiJsonLocator | null {
  if (!isJsonObject(value)) {
    problems.push(`${where} must be an object`)
    return null
  }
  const field = value.field
  if (!isOneOf(PII_ENTITY_FIELDS, field)) {
    problems.push(
      `${where}.field: The specified json field ${JSON.stringify(field)} is not supported (one of ${PII_ENTITY_FIELDS.join(', ')})`,
    )
    return null
  }
  const criterion =
    typeof value.schemaCriterion === 'string' ? parseSchemaCriterion(value.schemaCriterion) : null
  if (criterion === null) {
    problems.push(
      `${where}.schemaCriterion: Could not parse schema criterion ${JSON.stringify(value.schemaCriterion)} (iglu:vendor/name/format/M-R-A, each of M, R, A a number or *)`,
    )
    return null
  }
  const path = typeof value.jsonPath === 'string' ? value.jsonPath : ''
  const problem = jsonPathProblem(path)
  if (problem !== null) {
    problems.push(`${where}.jsonPath ${JSON.stringify(path)}: ${problem}`)
    return null
  }
  return { field, criterion, path }
}
