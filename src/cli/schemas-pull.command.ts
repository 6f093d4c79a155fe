import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
import { compareSchemaVer, parseSchemaVer } from '../iglu/index.js'
import { ConsoleApiClient, ConsoleApiError } from './console-api-client.js'
import { usageProblem, type CommandOutcome } from './schemas-lint.command.js'

export interface SchemasPullOptions extends ConsoleClientFlags {
  readonly env?: string
}

interface DataStructure {
  readonly hash: string
  readonly vendor: string
  readonly name: string
  readonly format: string
}

/** Versions in SchemaVer order (`1-2-0` before `1-10-0`), anything else after, as text. */
function bySchemaVer(a: string, b: string): number {
  const [x, y] = [parseSchemaVer(a), parseSchemaVer(b)]
  if (x !== null && y !== null) return compareSchemaVer(x, y)
  return x !== null ? -1 : y !== null ? 1 : a < b ? -1 : a > b ? 1 : 0
}

/** A part of a path from the registry: kept to one folder, never `..`. */
const safePart = (part: string) => /^[A-Za-z0-9_.-]+$/.test(part) && part !== '.' && part !== '..'

/**
 * Writes a file whole or not at all: the text goes to a file beside it, then takes its name, so
 * that a pull stopped half-way leaves each file as it was or as it should be, never cut short.
 */
async function writeWhole(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const partial = `${file}.floe-pull-${process.pid}`
  try {
    await writeFile(partial, text)
    await rename(partial, file)
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
}

/** What a pull did so far: each line it prints, and its counts. */
class PullReport {
  readonly lines: string[] = []
  written = 0
  unchanged = 0
  failed = 0

  fail(line: string): void {
    this.failed++
    this.lines.push(line)
  }
}

/** The versions of one structure in `env`, each written to DIR unless already so. */
async function pullStructure(
  client: ConsoleApiClient,
  structure: DataStructure,
  env: string,
  directory: string,
  report: PullReport,
): Promise<void> {
  const deployments = await client.getJsonList<{ version?: unknown }>(
    `/data-structures/v1/${structure.hash}/deployments?env=${env}`,
  )
  const named = deployments.map((d) => d.version)
  const versions = new Set(named.filter((version) => typeof version === 'string'))
  if (versions.size < new Set(named).size)
    report.fail(`not written: a deployment of ${structure.hash} names no version`)
  for (const version of [...versions].sort(bySchemaVer)) {
    const parts = [structure.vendor, structure.name, structure.format, version].map(String)
    if (!parts.every(safePart)) {
      report.fail(`not written ${parts.join('/')}: not a safe path`)
      continue
    }
    const answer = await client.call(
      'GET',
      `/data-structures/v1/${structure.hash}/versions/${version}?env=${env}`,
    )
    if (answer.status !== 200) {
      report.fail(`not written ${parts.join('/')}: the registry answered ${answer.status}`)
      continue
    }
    const file = path.join(directory, ...parts)
    const text = `${answer.text}\n`
    if ((await readFile(file, 'utf8').catch(() => null)) === text) {
      report.unchanged++
      continue
    }
    try {
      await writeWhole(file, text)
    } catch (error) {
      // A folder where the file goes, say: named, and the others still written.
      report.fail(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
      continue
    }
    report.written++
    report.lines.push(`wrote ${file}`)
  }
}

/**
 * `floe schemas pull DIR`: every version a registry holds in an environment (DEV by default, where
 * every version passes), written as `DIR/vendor/name/format/version`: the text the registry keeps,
 * which is the file as it was pushed, and a final newline. Files already so are left untouched; each
 * file is written whole or not at all. A version or structure that cannot be pulled is named, the
 * others are still written, and the exit code is 1.
 */
export async function pullSchemasCommand(
  directory: string,
  options: SchemasPullOptions,
): Promise<CommandOutcome> {
  const env = (options.env ?? 'dev').toUpperCase()
  if (env !== 'DEV' && env !== 'PROD')
    return usageProblem(`--env is dev or prod, not ${options.env}`)
  const found = await stat(directory).catch(() => null)
  if (found !== null && !found.isDirectory()) return usageProblem(`${directory} is not a directory`)
  const client = await ConsoleApiClient.connect(loadConsoleClientConfig(options))
  const report = new PullReport()
  for (const structure of await client.getJsonList<DataStructure>('/data-structures/v1')) {
    try {
      await pullStructure(client, structure, env, directory, report)
    } catch (error) {
      if (!(error instanceof ConsoleApiError)) throw error
      report.fail(
        `not written ${[structure.vendor, structure.name, structure.format].join('/')}: ${error.message}`,
      )
    }
  }
  const { written, unchanged, failed } = report
  report.lines.push(
    `${written} written, ${unchanged} unchanged${failed > 0 ? `, ${failed} not pulled` : ''} (${env})`,
  )
  return { output: `${report.lines.join('\n')}\n`, exitCode: failed > 0 ? 1 : 0 }
}
