import type { CompatibilityChecker, CompatibilityOutcome } from '../compatibility/index.js'
import type { DesignSchemaChecker } from '../iglu/index.js'
import { InvalidSpecSchemaError, SourceNotFoundError } from './compatibility-checks.errors.js'
import type { SourceResolver } from './scenario-checks.js'
import { isJsonObject } from '../shared/index.js'

export interface SpecSource {
  readonly source: string
  readonly schema?: unknown
}

export interface SourceVerdict {
  readonly source: string
  readonly status: CompatibilityOutcome
  readonly properties: Record<string, CompatibilityOutcome>
}

/** Overall status: any incompatible wins, then any undecidable. */
function worst(statuses: readonly CompatibilityOutcome[]): CompatibilityOutcome {
  if (statuses.includes('incompatible')) return 'incompatible'
  if (statuses.includes('undecidable')) return 'undecidable'
  return 'compatible'
}

/** Each property of the spec's schema against the same property of the data structure. */
async function propertyVerdicts(
  checker: CompatibilityChecker,
  schema: unknown,
  reference: Record<string, unknown>,
): Promise<Record<string, CompatibilityOutcome>> {
  const verdicts: Record<string, CompatibilityOutcome> = {}
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return verdicts
  const referenceProperties = isJsonObject(reference.properties) ? reference.properties : {}
  for (const [name, subschema] of Object.entries(schema.properties)) {
    if (Object.hasOwn(referenceProperties, name))
      verdicts[name] = (await checker.check(subschema, referenceProperties[name])).outcome
    else
      verdicts[name] =
        reference.additionalProperties === false
          ? 'incompatible'
          : (
              await checker.check(
                subschema,
                isJsonObject(reference.additionalProperties) ? reference.additionalProperties : {},
              )
            ).outcome
  }
  return verdicts
}

/**
 * snowplow-cli's `event-specs/v1/compatibility`: the event and each tracked entity, where both a
 * source and a schema are given, checked against the source version as a scenario write checks
 * it (the registry's, DEV content before PROD's; else a public schema).
 */
export async function checkEventSpec(
  resolve: SourceResolver,
  checker: CompatibilityChecker,
  designSchema: DesignSchemaChecker,
  spec: { event?: SpecSource; entities?: { tracked?: readonly SpecSource[] } },
) {
  // A source without a schema (absent or null) has nothing to compare; a schema that is not a
  // JSON Schema is refused, as a scenario's is, before anything is compared.
  const targets: { field: string; target: SpecSource }[] = []
  if (spec.event?.schema != null) targets.push({ field: 'spec.event', target: spec.event })
  for (const [i, entity] of (spec.entities?.tracked ?? []).entries()) {
    if (entity.schema != null)
      targets.push({ field: `spec.entities.tracked[${i}]`, target: entity })
  }
  /** Schemas that are valid but that Floe will not run: undecidable, not compared. */
  const unrunnable = new Set<SpecSource>()
  for (const { field, target } of targets) {
    const problem = await designSchema(target.schema, `${field}.schema`)
    if (problem?.kind === 'invalid')
      throw new InvalidSpecSchemaError(`${field}.schema`, problem.message)
    if (problem?.kind === 'undecidable') unrunnable.add(target)
  }
  const sources: SourceVerdict[] = []
  for (const { field: at, target } of targets) {
    const field = `${at}.source`
    const resolution = await resolve(target.source)
    if (resolution.kind !== 'found') throw new SourceNotFoundError(field, target.source)
    if (unrunnable.has(target)) {
      sources.push({ source: target.source, status: 'undecidable', properties: {} })
      continue
    }
    const reference = resolution.source.current.schema
    const result = await checker.check(target.schema, reference)
    sources.push({
      source: target.source,
      status: result.outcome,
      properties: await propertyVerdicts(checker, target.schema, reference),
    })
  }
  const status = worst(sources.map((s) => s.status))
  const message =
    sources.length === 0
      ? 'Nothing to check: give a source and a schema for the event or an entity'
      : status === 'compatible'
        ? 'Every schema is compatible with its source'
        : status === 'incompatible'
          ? 'At least one schema accepts data its source rejects'
          : 'Compatibility could not be decided for at least one schema'
  return { status, sources, message }
}
