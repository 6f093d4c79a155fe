import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
import { compareSchemaVer, parseSchemaVer } from '../iglu/index.js'
import { ConsoleApiClient } from './console-api-client.js'
import type { CommandOutcome } from './schemas-lint.command.js'

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
 * `floe schemas pull DIR`: every version a registry holds in an environment (DEV by default, where
 * every version passes), written as `DIR/vendor/name/format/version`: the text the registry keeps,
 * which is the file as it was pushed, and a final newline. Files already so are left untouched.
 */
export async function pullSchemasCommand(
  directory: string,
  options: SchemasPullOptions,
): Promise<CommandOutcome> {
  const env = (options.env ?? 'dev').toUpperCase()
  if (env !== 'DEV' && env !== 'PROD')
    return { output: `floe: --env is dev or prod, not ${options.env}\n`, exitCode: 2 }
  const found = await stat(directory).catch(() => null)
  if (found !== null && !found.isDirectory())
    return { output: `floe: ${directory} is not a directory\n`, exitCode: 2 }
  const client = await ConsoleApiClient.connect(loadConsoleClientConfig(options))
  let written = 0
  let failed = 0
  let unchanged = 0
  const lines: string[] = []
  for (const structure of await client.getJson<DataStructure[]>('/data-structures/v1')) {
    const deployments = await client.getJson<{ version: string; env: string }[]>(
      `/data-structures/v1/${structure.hash}/deployments?env=${env}`,
    )
    for (const version of [...new Set(deployments.map((d) => d.version))].sort(bySchemaVer)) {
      const parts = [structure.vendor, structure.name, structure.format, version]
      if (!parts.every(safePart)) {
        lines.push(`skipped ${parts.join('/')}: not a safe path`)
        continue
      }
      const answer = await client.call(
        'GET',
        `/data-structures/v1/${structure.hash}/versions/${version}?env=${env}`,
      )
      if (answer.status !== 200) {
        lines.push(`skipped ${parts.join('/')}: ${answer.status}`)
        continue
      }
      const file = path.join(directory, ...parts)
      const text = `${answer.text}\n`
      if ((await readFile(file, 'utf8').catch(() => null)) === text) {
        unchanged++
        continue
      }
      try {
        await mkdir(path.dirname(file), { recursive: true })
        await writeFile(file, text)
      } catch (error) {
        // A folder where the file goes, say: named, and the others still written.
        failed++
        lines.push(
          `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        )
        continue
      }
      written++
      lines.push(`wrote ${file}`)
    }
  }
  lines.push(
    `${written} written, ${unchanged} unchanged${failed > 0 ? `, ${failed} not written` : ''} (${env})`,
  )
  return { output: `${lines.join('\n')}\n`, exitCode: failed > 0 ? 1 : 0 }
}
