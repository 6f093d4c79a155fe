import { readdir, readFile, realpath } from 'node:fs/promises'
import path from 'node:path'
import { parseSchemaVer } from '../iglu/index.js'
import type { LintFinding, SchemaFile } from '../registry/index.js'

/** Text order by UTF-16 code units: the same on every machine, whatever its locale. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** What a directory of schemas holds: the schema files, the others, and what could not be read. */
export interface SchemaDirectory {
  readonly files: SchemaFile[]
  /** Files that are not schemas (READMEs, Avro schemas), counted. */
  readonly skipped: number
  /** Files and links that look meant as schemas but were not read, as lint findings. */
  readonly problems: LintFinding[]
}

const isInside = (root: string, place: string) =>
  place === root || place.startsWith(`${root}${path.sep}`)

/**
 * The JSON Schemas of an Iglu repository's layout: files named as a SchemaVer (`1-0-0`) in a
 * `jsonschema` folder. Others (Avro or Thrift schemas, READMEs) are counted as skipped; dot
 * folders are not read. A symbolic link that leads to a place inside the directory is not followed:
 * what it leads to is read where it is, under its own path (so an alias never renames a schema);
 * one that leads outside, or to nothing, is named as a problem, so that lint and push never pass
 * over a schema in silence. A file of a `jsonschema` folder not named
 * as a SchemaVer (`1-0-0.json`), or one that cannot be read, is a problem too.
 */
export async function schemaFiles(root: string): Promise<SchemaDirectory> {
  const files: SchemaFile[] = []
  const problems: LintFinding[] = []
  let skipped = 0
  const realRoot = await realpath(root)
  const relative = (full: string) => path.relative(root, full).split(path.sep).join('/')
  const problem = (full: string, severity: LintFinding['severity'], message: string) =>
    problems.push({ file: relative(full), line: 1, severity, rule: 'file', message })

  async function walk(folder: string): Promise<void> {
    const entries = await readdir(folder, { withFileTypes: true })
    entries.sort((a, b) => byCodeUnits(a.name, b.name))
    for (const entry of entries) {
      const full = path.join(folder, entry.name)
      const kind: 'file' | 'folder' | 'other' = entry.isDirectory()
        ? 'folder'
        : entry.isFile()
          ? 'file'
          : 'other'
      if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => null)
        // What a link inside the directory leads to is read where it is, under its own path.
        if (target !== null && isInside(realRoot, target)) continue
        problem(full, 'error', 'a link to a place outside the directory (or to nothing): not read')
        continue
      }
      if (kind === 'folder') {
        if (!entry.name.startsWith('.')) await walk(full)
        continue
      }
      const inSchemaFolder = path.basename(folder) === 'jsonschema'
      if (kind !== 'file' || !inSchemaFolder) {
        skipped++
        continue
      }
      if (parseSchemaVer(entry.name) === null) {
        problem(
          full,
          'warning',
          'in a jsonschema folder but not named as a SchemaVer (1-0-0): not read',
        )
        continue
      }
      try {
        files.push({ path: relative(full), text: await readFile(full, 'utf8') })
      } catch (error) {
        problem(
          full,
          'error',
          `cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        )
      }
    }
  }
  await walk(root)
  return { files, skipped, problems }
}
