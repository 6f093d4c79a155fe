import { stat } from 'node:fs/promises'
import path from 'node:path'
import { checkCompatibilityOnDemand } from './compatibility-on-demand.js'
import { createAjv } from '../iglu/index.js'
import { lintSchemaDirectory, type LintFinding } from '../registry/index.js'
import { schemaFiles } from './schema-files.js'

export interface SchemasLintOptions {
  readonly format?: string
  readonly strict?: boolean
}

/** What a command prints (its report on stdout, what went wrong on stderr), and its exit code. */
export interface CommandOutcome {
  readonly output: string
  readonly exitCode: number
  readonly errorOutput?: string
}

/** A usage problem (a missing directory, an unknown option value): exit code 2, said on stderr. */
export const usageProblem = (message: string): CommandOutcome => ({
  output: '',
  exitCode: 2,
  errorOutput: `floe: ${message}\n`,
})

const SEVERITY_ORDER: Record<LintFinding['severity'], number> = { error: 0, warning: 1, info: 2 }

/** Findings by file (code unit order, the same in every locale), line, then severity. */
export const inFindingOrder = (a: LintFinding, b: LintFinding) =>
  (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
  a.line - b.line ||
  SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]

const count = (findings: readonly LintFinding[], severity: LintFinding['severity']) =>
  findings.filter((f) => f.severity === severity).length

/**
 * `floe schemas lint DIR`: the registry's validation of every schema in DIR, with no server, and
 * the directory's versioning checked with the compatibility engine. Exit code 1 on an error (and
 * on a warning with `--strict`).
 */
export async function lintSchemasCommand(
  directory: string,
  options: SchemasLintOptions,
): Promise<CommandOutcome> {
  const format = options.format ?? 'text'
  if (format !== 'text' && format !== 'json')
    return usageProblem(`--format is text or json, not ${format}`)
  const isFolder = await stat(directory).then(
    (s) => s.isDirectory(),
    () => false,
  )
  if (!isFolder) return usageProblem(`${directory} is not a directory`)
  const { files, skipped, problems } = await schemaFiles(directory)
  const ajv = createAjv()
  const linted = await lintSchemaDirectory(files, {
    ajv,
    checker: {
      check: async (candidate, reference) =>
        checkCompatibilityOnDemand(candidate, reference, { ajv }),
    },
  })
  const findings = [...problems, ...linted].sort(inFindingOrder)
  const summary = {
    files: files.length,
    skipped,
    errors: count(findings, 'error'),
    warnings: count(findings, 'warning'),
    info: count(findings, 'info'),
  }
  const failed = summary.errors > 0 || (options.strict === true && summary.warnings > 0)
  const output =
    format === 'json'
      ? `${JSON.stringify({ findings, summary }, null, 2)}\n`
      : [
          ...findings.map(
            (f) =>
              `${path.join(directory, f.file)}:${f.line}: ${f.severity} ${f.rule} ${f.message}`,
          ),
          `${summary.files} schemas: ${summary.errors} errors, ${summary.warnings} warnings, ${summary.info} info${skipped > 0 ? ` (${skipped} other files skipped)` : ''}`,
          '',
        ].join('\n')
  return { output, exitCode: failed ? 1 : 0 }
}
