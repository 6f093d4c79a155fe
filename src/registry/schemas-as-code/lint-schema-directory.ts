import { parse as parseLoosely, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { parse as parseLosslessly } from 'lossless-json'
import type { CompatibilityChecker } from '../../compatibility/index.js'
import {
  bumpKind,
  compareSchemaVer,
  formatSchemaVer,
  sequencingProblem,
  type Ajv,
  type SchemaVer,
} from '../../iglu/index.js'
import {
  escapePointerToken,
  firstUnstorable,
  isJsonObject,
  pointerLines,
} from '../../shared/index.js'
import {
  MAX_SCHEMA_DEPTH,
  reportMessageParts,
  validateSchemaDocument,
} from '../schema-validation.js'
import { versionChange } from '../version-change.js'

/** A schema file of a directory laid out as Iglu repositories are: `…/vendor/name/format/version`. */
export interface SchemaFile {
  /** Its path from the directory, with `/` between parts. */
  readonly path: string
  readonly text: string
}

export type Severity = 'error' | 'warning' | 'info'

export interface LintFinding {
  readonly file: string
  /** 1-based; the line of the value the finding names (1 for the whole file). */
  readonly line: number
  readonly severity: Severity
  readonly rule: string
  readonly message: string
}

/** Text order by UTF-16 code units: the same on every machine, whatever its locale. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The property a linter's finding about an object names (`property "sku" has …`), or null. */
const NAMED_PROPERTY = /^(?:optional )?property "(.*)" (?:has|must|should) /

/**
 * The pointer a finding is about: the object's, or, when the finding names one of its properties,
 * that property's (so that its line is the property's, not the object's).
 */
function findingPointer(pointer: string, text: string): string {
  const named = NAMED_PROPERTY.exec(text)
  return named === null ? pointer : `${pointer}/properties/${escapePointerToken(named[1]!)}`
}

/** The line of a character offset. */
const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length

/** Longest witness text in a message (a witness may hold a string of thousands of characters). */
const WITNESS_CHARS = 200

function witnessText(witness: unknown): string {
  const text = JSON.stringify(witness)
  return text.length <= WITNESS_CHARS
    ? text
    : `${text.slice(0, WITNESS_CHARS)}… (${text.length} characters)`
}

/** `PropertyNameExpected` → `property name expected`. */
const words = (code: string) => code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()

/** Strict JSON: the value, or where and why it is not JSON. */
function parseJson(text: string): { value: unknown } | { offset: number; message: string } {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (error) {
    // jsonc-parser says where; it also reads comments and trailing commas, which JSON.parse refused.
    const errors: ParseError[] = []
    parseLoosely(text, errors, { disallowComments: true, allowTrailingComma: false })
    const first = errors[0]
    return {
      offset: first?.offset ?? 0,
      message: `not JSON: ${first === undefined ? (error as Error).message : words(printParseErrorCode(first.error))}`,
    }
  }
}

/**
 * The largest schema file the registry can take: the API's 1 MiB body limit
 * (`src/http/body-limits.ts`) less room for the validation request around the schema.
 */
export const MAX_SCHEMA_FILE_BYTES = 1024 * 1024 - 1024

/**
 * A key written twice in one object with two different values: the registry refuses the schema
 * (its lossless parse, which the content hash is made from, does), where JSON.parse keeps the last.
 * The same value twice is let through, as the registry lets it (Iglu Central has such schemas).
 */
function conflictingKey(text: string): { offset: number; key: string } | null {
  try {
    parseLosslessly(text)
    return null
  } catch (error) {
    const found = /^Duplicate key '(.*)' encountered at position (\d+)/.exec(
      error instanceof Error ? error.message : '',
    )
    return found === null ? null : { key: found[1]!, offset: Number(found[2]) }
  }
}

interface Parsed {
  readonly file: SchemaFile
  readonly schema: Record<string, unknown>
  readonly version: SchemaVer
  /** `vendor/name/format`, from `self`. */
  readonly group: string
  /** The line of `/self/version`, where the directory's version findings point. */
  readonly versionLine: number
}

/** The key a path names: its last four parts. */
function pathKey(path: string) {
  const parts = path.split('/')
  if (parts.length < 4) return null
  const [vendor, name, format, version] = parts.slice(-4) as [string, string, string, string]
  return { vendor, name, format, version }
}

/**
 * The registry's checks, offline, over a directory of schemas: each file as a validation request
 * checks it (the meta-schema, Iglu's `self`, the linters at their levels, the size and pattern
 * limits), its path against its `self`, and each schema's version against the others of its
 * vendor, name and format: no gap (Iglu Server's sequencing), and a bump the compatibility engine
 * agrees with (a breaking change numbered as an addition is an error, with a witness).
 */
export async function lintSchemaDirectory(
  files: readonly SchemaFile[],
  deps: { readonly ajv: Ajv; readonly checker: CompatibilityChecker },
): Promise<LintFinding[]> {
  const findings: LintFinding[] = []
  const parsed: Parsed[] = []
  for (const file of files) {
    const add = (line: number, severity: Severity, rule: string, message: string) =>
      findings.push({ file: file.path, line, severity, rule, message })
    const bytes = Buffer.byteLength(file.text)
    if (bytes > MAX_SCHEMA_FILE_BYTES) {
      add(
        1,
        'error',
        'limits',
        `the file is ${bytes} bytes: the registry takes a schema of at most ${MAX_SCHEMA_FILE_BYTES} bytes (a 1 MiB request)`,
      )
      continue
    }
    const json = parseJson(file.text)
    if (!('value' in json)) {
      add(lineAt(file.text, json.offset), 'error', 'json', json.message)
      continue
    }
    const twice = conflictingKey(file.text)
    if (twice !== null) {
      add(
        lineAt(file.text, twice.offset),
        'error',
        'json',
        `the key ${JSON.stringify(twice.key)} is written twice in one object, with different values`,
      )
      continue
    }
    const lines = pointerLines(file.text)
    const at = (pointer: string) => lines(pointer) ?? 1
    // What the registry's API refuses in any request body: 1e400, U+0000, a lone surrogate.
    const unstorable = firstUnstorable('', json.value)
    if (unstorable !== null) {
      add(
        at(unstorable.where),
        'error',
        'json',
        `${unstorable.where === '' ? 'the document' : unstorable.where} ${unstorable.problem}`,
      )
      continue
    }
    let report
    try {
      report = validateSchemaDocument(json.value, deps.ajv)
    } catch {
      add(1, 'error', 'limits', `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`)
      continue
    }
    const levels = [
      ['error', report.errors],
      ['warning', report.warnings],
      ['info', report.info],
    ] as const
    for (const [severity, messages] of levels)
      for (const message of messages) {
        const { pointer, text, rule } = reportMessageParts(message)
        const line = lines(findingPointer(pointer, text)) ?? at(pointer)
        add(line, severity, rule ?? 'schema', `${pointer}: ${text}`)
      }
    const key = report.key
    if (key === null || !isJsonObject(json.value)) continue
    const named = pathKey(file.path)
    const self = { ...key, version: formatSchemaVer(key.version) }
    if (named === null)
      add(1, 'error', 'path', 'the file is not at vendor/name/format/version in the directory')
    else
      for (const part of ['vendor', 'name', 'format', 'version'] as const)
        if (named[part] !== self[part])
          add(
            at(`/self/${part}`),
            'error',
            'path',
            `/self/${part}: "${self[part]}" differs from the file's path, which says "${named[part]}"`,
          )
    parsed.push({
      file,
      schema: json.value,
      version: key.version,
      group: `${key.vendor}/${key.name}/${key.format}`,
      versionLine: at('/self/version'),
    })
  }

  const groups = new Map<string, Parsed[]>()
  for (const schema of parsed) {
    const group = groups.get(schema.group)
    if (group === undefined) groups.set(schema.group, [schema])
    else group.push(schema)
  }
  for (const members of groups.values()) {
    members.sort((a, b) => compareSchemaVer(a.version, b.version))
    for (const [index, member] of members.entries()) {
      const earlier = members.slice(0, index)
      const line = member.versionLine
      const add = (rule: string, message: string) =>
        findings.push({ file: member.file.path, line, severity: 'error', rule, message })
      if (earlier.some((e) => compareSchemaVer(e.version, member.version) === 0)) {
        add(
          'duplicateVersion',
          `/self/version: another file is ${formatSchemaVer(member.version)} too`,
        )
        continue
      }
      const gap = sequencingProblem(
        member.version,
        earlier.map((e) => e.version),
      )
      if (gap !== null) add('versionGap', `/self/version: ${gap} in this directory`)
      // A new model may change anything: only an addition or a revision can understate a change.
      const previous = earlier.at(-1)
      if (previous === undefined || bumpKind(previous.version, member.version) === 'MODEL') continue
      const change = await versionChange(
        formatSchemaVer(member.version),
        member.schema,
        earlier.map((e) => ({ version: formatSchemaVer(e.version), schema: e.schema })),
        deps.checker,
      )
      if (change?.misversioned === true)
        add(
          'versionBump',
          `/self/version: a ${change.changeType} change from ${change.previousVersion} numbered ${formatSchemaVer(member.version)}; ${change.suggestedVersion} would say so${change.witness === undefined ? '' : `: ${witnessText(change.witness)} is valid under ${change.previousVersion} and refused by ${formatSchemaVer(member.version)}`}`,
        )
    }
  }
  const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 }
  return findings.sort(
    (a, b) =>
      byCodeUnits(a.file, b.file) || a.line - b.line || order[a.severity] - order[b.severity],
  )
}
