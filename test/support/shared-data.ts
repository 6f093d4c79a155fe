import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe } from 'vitest'
import { compareSchemaVer, parseSchemaVer } from '../../src/iglu/schema-ver.js'

/**
 * Test data shared with the project but never copied into it: Iglu Central's schemas and the
 * JSON Schema Test Suite. `FLOE_TEST_DATA` names the folder holding both; the default is the
 * `shared/data` folder beside the repository.
 */
// Test infrastructure, not the app: the one other place that reads the environment is test-databases.ts.
export const SHARED_DATA = resolve(
  process.env.FLOE_TEST_DATA ?? new URL('../../../shared/data/', import.meta.url).pathname,
)
export const IGLU_CENTRAL = join(SHARED_DATA, 'iglu-central/schemas')
export const TEST_SUITE_DRAFT4 = join(SHARED_DATA, 'json-schema-test-suite/tests/draft4')

/** Whether the shared data is there (a fresh clone with nothing beside it has none). */
export const sharedDataPresent = existsSync(IGLU_CENTRAL) && existsSync(TEST_SUITE_DRAFT4)

const ABSENT = `the shared test data is not at ${SHARED_DATA}: set FLOE_TEST_DATA to the folder holding iglu-central/ and json-schema-test-suite/`
if (!sharedDataPresent)
  console.warn(`skipping the tests that read Iglu Central or the JSON Schema Test Suite: ${ABSENT}`)

/**
 * `describe` for tests that use the shared data as fixtures: skipped where it is absent (saying so
 * above), so that the fast tier passes on a fresh clone with nothing beside it.
 */
export const describeWithSharedData = describe.skipIf(!sharedDataPresent)

/** Throws, naming the folder and the variable, where the shared data is absent: the corpus tests of the full tier need it. */
function requireSharedData(): void {
  if (!sharedDataPresent) throw new Error(ABSENT)
}

export interface IgluCentralSchema {
  readonly vendor: string
  readonly name: string
  readonly version: string
  readonly schema: Record<string, unknown>
  /** The file as it is, byte for byte. */
  readonly text: string
}

/** Every jsonschema of Iglu Central, ordered by vendor, name, then SchemaVer. */
export function loadIgluCentral(): IgluCentralSchema[] {
  requireSharedData()
  const schemas: IgluCentralSchema[] = []
  for (const vendor of readdirSync(IGLU_CENTRAL)) {
    for (const name of readdirSync(join(IGLU_CENTRAL, vendor))) {
      let versions: string[]
      try {
        versions = readdirSync(join(IGLU_CENTRAL, vendor, name, 'jsonschema'))
      } catch {
        continue // another format (e.g. thrift)
      }
      for (const version of versions) {
        const text = readFileSync(join(IGLU_CENTRAL, vendor, name, 'jsonschema', version), 'utf8')
        const schema = JSON.parse(text) as Record<string, unknown>
        schemas.push({ vendor, name, version, schema, text })
      }
    }
  }
  return schemas.sort(
    (a, b) =>
      a.vendor.localeCompare(b.vendor) ||
      a.name.localeCompare(b.name) ||
      compareSchemaVer(parseSchemaVer(a.version)!, parseSchemaVer(b.version)!),
  )
}

export interface SuiteGroup {
  readonly file: string
  readonly description: string
  readonly schema: unknown
  readonly tests: readonly { description: string; data: unknown; valid: boolean }[]
}

/** The draft-04 JSON Schema Test Suite, file by file (optional/ included). */
export function loadTestSuite(): SuiteGroup[] {
  requireSharedData()
  const groups: SuiteGroup[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (entry.endsWith('.json')) {
        const file = path.slice(TEST_SUITE_DRAFT4.length + 1)
        for (const group of JSON.parse(readFileSync(path, 'utf8')) as Omit<SuiteGroup, 'file'>[])
          groups.push({ ...group, file })
      }
    }
  }
  walk(TEST_SUITE_DRAFT4)
  return groups
}
