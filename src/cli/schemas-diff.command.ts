import { readFile } from 'node:fs/promises'
import { checkCompatibilityOnDemand } from './compatibility-on-demand.js'
import { createAjv } from '../iglu/index.js'
import { schemaVersionChange } from '../registry/index.js'
import { usageProblem, type CommandOutcome } from './schemas-lint.command.js'

/** Exit codes of `floe schemas diff`: a CI step can tell a breaking change from an undecided one (2 is a usage problem). */
const EXIT = { compatible: 0, incompatible: 1, undecidable: 3 } as const

async function readSchema(file: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    throw new Error(`${file} cannot be read`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${file} is not a JSON Schema object`)
  return value as Record<string, unknown>
}

/**
 * `floe schemas diff A B`: can every value valid under A still be sent under B? The compatibility
 * engine's verdict (compatible, incompatible with a witness, or undecidable), and, for two versions
 * of one schema, the change B makes and the version number that says so.
 */
export async function diffSchemasCommand(
  before: string,
  after: string,
  options: { format?: string },
): Promise<CommandOutcome> {
  const format = options.format ?? 'text'
  if (format !== 'text' && format !== 'json')
    return usageProblem(`--format is text or json, not ${format}`)
  let schemas: [Record<string, unknown>, Record<string, unknown>]
  try {
    schemas = [await readSchema(before), await readSchema(after)]
  } catch (error) {
    return usageProblem((error as Error).message)
  }
  const ajv = createAjv()
  const checker = {
    check: async (candidate: unknown, reference: unknown) =>
      checkCompatibilityOnDemand(candidate, reference, { ajv }),
  }
  const verdict = await checker.check(schemas[0], schemas[1])
  // A schema Ajv cannot compile is a file the command cannot use, as an unreadable one is.
  const invalid = verdict.reasons.find((reason) => reason.code === 'invalid-schema')
  if (verdict.outcome === 'undecidable' && invalid !== undefined) {
    const file = invalid.schema === 'candidate' ? before : after
    return usageProblem(
      `${file} is not a valid JSON Schema: ${invalid.pointer || '/'}: ${invalid.detail}`,
    )
  }
  const change = await schemaVersionChange(schemas[0], schemas[1], checker)
  const exitCode = EXIT[verdict.outcome]
  if (format === 'json')
    return {
      output: `${JSON.stringify({ before, after, ...verdict, versionChange: change }, null, 2)}\n`,
      exitCode,
    }
  const lines = [`${before} → ${after}: ${verdict.outcome}`]
  if (verdict.outcome === 'compatible')
    lines.push(`  every value valid under ${before} is valid under ${after}`)
  if (verdict.outcome === 'incompatible') {
    lines.push(
      `  a value valid under ${before} that ${after} refuses${verdict.path === undefined ? '' : ` at ${verdict.path || '/'}`}:`,
      `  ${JSON.stringify(verdict.witness)}`,
    )
    if (verdict.schemaPath !== undefined) lines.push(`  refused by ${verdict.schemaPath}`)
  }
  if (verdict.outcome === 'undecidable')
    for (const reason of verdict.reasons.slice(0, 5))
      lines.push(`  ${reason.code} at ${reason.pointer || '/'}: ${reason.detail}`)
  if (change !== null)
    lines.push(
      `  a ${change.changeType} change from ${change.previousVersion}: ${change.suggestedVersion} says so${change.misversioned ? `; ${change.version} understates it` : ''}`,
    )
  return { output: `${lines.join('\n')}\n`, exitCode }
}
