import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { parseSchemaVer } from '../iglu/index.js'
import type { SchemaFile } from '../registry/index.js'

/**
 * The JSON Schemas of an Iglu repository's layout: files named as a SchemaVer (`1-0-0`) in a
 * `jsonschema` folder. Others (Avro or Thrift schemas, READMEs) are counted as skipped; dot
 * folders are not read.
 */
export async function schemaFiles(root: string): Promise<{ files: SchemaFile[]; skipped: number }> {
  const files: SchemaFile[] = []
  let skipped = 0
  async function walk(folder: string): Promise<void> {
    const entries = await readdir(folder, { withFileTypes: true })
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await walk(full)
      } else if (
        entry.isFile() &&
        parseSchemaVer(entry.name) !== null &&
        path.basename(folder) === 'jsonschema'
      ) {
        files.push({
          path: path.relative(root, full).split(path.sep).join('/'),
          text: await readFile(full, 'utf8'),
        })
      } else skipped++
    }
  }
  await walk(root)
  return { files, skipped }
}
