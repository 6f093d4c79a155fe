import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './support/source-files.js'

// docs/configuration.md is the one table of every setting; these checks keep it whole as settings
// are added: each flag `floe start` and `floe` take, and each FLOE_ variable the sources read.

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = path.join(ROOT, 'dist', 'floe.mjs')
const CONFIGURATION = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8')

/** Names in the sources that are not settings: what each is instead. */
const NOT_SETTINGS: Readonly<Record<string, string>> = {
  FLOE_INVALID_JSON_BODY: 'an error code of the API (src/http/json-body-parser.ts)',
}

/** The long flags a command's `--help` lists, each where an option's line starts. */
function flagsOf(command: readonly string[]): string[] {
  const help = execFileSync(process.execPath, [MAIN, ...command, '--help'], { encoding: 'utf8' })
  const flags = [...help.matchAll(/^ {2}(?:-[A-Za-z], )?(--[a-z][a-z-]*)/gm)].map(
    (match) => match[1]!,
  )
  return flags.filter((flag) => flag !== '--help' && flag !== '--version')
}

/** The FLOE_ names written in the sources (tests aside), with a file that writes each. */
function variablesInSources(): Map<string, string> {
  const found = new Map<string, string>()
  for (const file of sourceFiles(path.join(ROOT, 'src')))
    for (const [name] of readFileSync(file, 'utf8').matchAll(/\bFLOE_[A-Z0-9_]*[A-Z0-9]\b/g))
      if (!found.has(name)) found.set(name, path.relative(ROOT, file))
  return found
}

describe('docs/configuration.md names every setting', () => {
  it.each([
    { name: 'floe start', command: ['start'], atLeast: 20 },
    { name: 'floe', command: [], atLeast: 1 },
  ])('every flag of $name', ({ command, atLeast }) => {
    const flags = flagsOf(command)
    // The help lists options: a parse that found none would check nothing.
    expect(flags.length).toBeGreaterThanOrEqual(atLeast)
    const missing = flags.filter((flag) => !CONFIGURATION.includes(`\`${flag}`))
    expect(missing, 'flags missing from docs/configuration.md').toEqual([])
  })

  it('every FLOE_ environment variable the sources read', () => {
    const variables = variablesInSources()
    expect(variables.size).toBeGreaterThan(30)
    const missing = [...variables]
      .filter(([name]) => !(name in NOT_SETTINGS) && !CONFIGURATION.includes(name))
      .map(([name, file]) => `${name} (${file})`)
    expect(missing, 'variables missing from docs/configuration.md').toEqual([])
    // An exception that no source writes any more is left out of the list too.
    for (const name of Object.keys(NOT_SETTINGS)) expect(variables.has(name), name).toBe(true)
  })
})
