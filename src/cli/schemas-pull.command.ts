import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
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
  const client = await ConsoleApiClient.connect(loadConsoleClientConfig(options))
  let written = 0
  let unchanged = 0
  const lines: string[] = []
  for (const structure of await client.getJson<DataStructure[]>('/data-structures/v1')) {
    const deployments = await client.getJson<{ version: string; env: string }[]>(
      `/data-structures/v1/${structure.hash}/deployments?env=${env}`,
    )
    for (const version of [...new Set(deployments.map((d) => d.version))].sort()) {
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
      await mkdir(path.dirname(file), { recursive: true })
      await writeFile(file, text)
      written++
      lines.push(`wrote ${path.join(directory, ...parts)}`)
    }
  }
  lines.push(`${written} written, ${unchanged} unchanged (${env})`)
  return { output: `${lines.join('\n')}\n`, exitCode: 0 }
}
