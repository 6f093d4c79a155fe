import {
  contentHashOfText,
  memberRawText,
  compileSchema,
  type Ajv,
  jsonDepthExceeds,
  schemaSizeProblem,
  type SchemaKey,
  checkSelfDescribing,
} from '../iglu/index.js'
import { cutText, isJsonObject } from '../shared/index.js'
import { lintSchema } from './lint/lint-schema.js'
import { SchemaTooCostlyError, SchemaTooDeepError, ValidationBusyError } from './registry.errors.js'
import type { LintFinding } from './lint/linter.js'

/** The check below wherever it runs: a report, or why there is none (the server runs it in its worker pool). */
export type SchemaDocumentCheck =
  | {
      readonly kind: 'report'
      readonly report: SchemaValidationReport
      /** The document's text as it was sent, compact, numbers exactly as written. */
      readonly text: string
      /** The content hash of that text. */
      readonly contentHash: string
    }
  | { readonly kind: 'too-deep' }
  | { readonly kind: 'too-costly'; readonly detail: string }
  | { readonly kind: 'busy'; readonly detail: string }

/** Deeper schemas are refused before any recursive work is done on them. */
export const MAX_SCHEMA_DEPTH = 100

const DRAFT_04 = 'http://json-schema.org/draft-04/schema#'

/** The outcome of checking one schema document: ERRORs make it unusable, the rest is advice. */
export interface SchemaValidationReport {
  /** The schema's own key, when its `self` is valid. */
  readonly key: SchemaKey | null
  readonly errors: readonly string[]
  readonly warnings: readonly string[]
  readonly info: readonly string[]
}

/**
 * The most messages of one level a report lists, and the most characters of one. Each message
 * names its place by a JSON pointer: 45 nested properties of 18 000-character names made a 99 MB
 * report of an 812 kB schema, and held the event loop 4 s while it was stored and sent.
 */
export const MAX_REPORT_MESSAGES = 500
export const MAX_REPORT_MESSAGE_CHARS = 2_000

const boundedMessage = (message: string): string => cutText(message, MAX_REPORT_MESSAGE_CHARS)

/**
 * `messages` (and `unwritten` more, not yet written out), each bounded, at most
 * MAX_REPORT_MESSAGES of them, then how many were left out.
 */
function boundedMessages(messages: readonly string[], unwritten = 0): string[] {
  const listed = messages.slice(0, MAX_REPORT_MESSAGES).map(boundedMessage)
  const left = messages.length + unwritten - listed.length
  if (left > 0) listed.push(`/: ${left} more not listed [limits]`)
  return listed
}

function describe(finding: LintFinding): string {
  return boundedMessage(`${finding.pointer}: ${finding.message} [${finding.linter}]`)
}

/**
 * A report message split back into what {@link describe} (and the other checks here) wrote:
 * `"/pointer: text [rule]"`; a message without a pointer is about the root (`/`).
 */
export function reportMessageParts(message: string): {
  pointer: string
  text: string
  rule: string | null
} {
  const rule = /\s\[([A-Za-z]+)\]$/.exec(message)
  const body = rule === null ? message : message.slice(0, rule.index)
  const pointer = /^(\/[^:\s]*): /.exec(body)
  return {
    pointer: pointer?.[1] ?? '/',
    text: pointer === null ? body : body.slice(pointer[0].length),
    rule: rule?.[1] ?? null,
  }
}

/**
 * Is `data` a proper draft-04 JSON Schema, a valid self-describing schema, and loadable by
 * warehouses? Pure apart from the Ajv instance it is given. Throws SchemaTooDeepError past MAX_SCHEMA_DEPTH.
 */
export function validateSchemaDocument(data: unknown, ajv: Ajv): SchemaValidationReport {
  if (!isJsonObject(data))
    return { key: null, errors: ['/: the schema must be a JSON object'], warnings: [], info: [] }
  // Refused outright (not reported) so that no recursive validation ever sees a hostile depth.
  if (jsonDepthExceeds(data, MAX_SCHEMA_DEPTH)) throw new SchemaTooDeepError(MAX_SCHEMA_DEPTH)
  const errors: string[] = []
  const selfDescribing = checkSelfDescribing(data)
  if (selfDescribing.kind === 'invalid') {
    // `$schema` is reported by the schemaUri linter below.
    errors.push(
      ...selfDescribing.problems
        .filter((p) => !p.startsWith('/$schema'))
        .map((p) => `${p} [selfDescribing]`),
    )
  }

  if (selfDescribing.kind === 'valid' && selfDescribing.key.format !== 'jsonschema') {
    errors.push(
      `/self/format: the registry keeps JSON Schemas only: format must be "jsonschema", not ${JSON.stringify(selfDescribing.key.format)} [selfDescribing]`,
    )
  }

  // Past a published size limit nothing is compiled or linted: the one error names the limit.
  const sizeProblem = schemaSizeProblem(data)
  if (sizeProblem !== null) {
    errors.push(`${sizeProblem} [limits]`)
    return {
      key: selfDescribing.kind === 'valid' ? selfDescribing.key : null,
      errors,
      warnings: [],
      info: [],
    }
  }

  const asDraft04 = { ...data, $schema: DRAFT_04 }
  if (!ajv.validateSchema(asDraft04)) {
    for (const error of ajv.errors ?? [])
      errors.push(`${error.instancePath || '/'}: ${error.message ?? 'invalid'} [jsonSchema]`)
  } else {
    try {
      compileSchema(ajv, asDraft04)
    } catch (error) {
      errors.push(
        `/: the schema cannot be compiled: ${error instanceof Error ? error.message : String(error)} [jsonSchema]`,
      )
    } finally {
      ajv.removeSchema(asDraft04)
    }
  }

  const findings = lintSchema(data)
  /** The findings of one level: the first ones written out (no more than are listed), and how many more. */
  const at = (level: LintFinding['level']) => {
    const found = findings.filter((f) => f.level === level)
    return {
      written: found.slice(0, MAX_REPORT_MESSAGES).map(describe),
      unwritten: Math.max(0, found.length - MAX_REPORT_MESSAGES),
    }
  }
  const lintErrors = at('ERROR')
  const warnings = at('WARNING')
  const info = at('INFO')
  return {
    key: selfDescribing.kind === 'valid' ? selfDescribing.key : null,
    errors: boundedMessages([...errors, ...lintErrors.written], lintErrors.unwritten),
    warnings: boundedMessages(warnings.written, warnings.unwritten),
    info: boundedMessages(info.written, info.unwritten),
  }
}

/** The report of a check, or the domain error that stands for its absence. */
export function reportOf(check: SchemaDocumentCheck): SchemaValidationReport {
  switch (check.kind) {
    case 'report':
      return check.report
    case 'too-deep':
      throw new SchemaTooDeepError(MAX_SCHEMA_DEPTH)
    case 'too-costly':
      throw new SchemaTooCostlyError(check.detail)
    case 'busy':
      throw new ValidationBusyError(check.detail)
    default: {
      const unknown: never = check
      throw new Error(`unknown check ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * The check of a validation request's `data`, with its text as sent: `bodyText` is the request's
 * JSON body, whose `data` member keeps its numbers as written (without it, the parsed value's).
 * Costly on large documents (a lossless parse): the server runs it in its worker pool.
 */
export function checkSchemaDocument(
  data: unknown,
  bodyText: string | undefined,
  ajv: Ajv,
): SchemaDocumentCheck {
  const report = validateSchemaDocument(data, ajv)
  // Stored as received: the `data` member's own text, whitespace and all.
  const text =
    (bodyText === undefined ? undefined : memberRawText(bodyText, 'data')) ?? JSON.stringify(data)
  try {
    return { kind: 'report', report, text, contentHash: contentHashOfText(text) }
  } catch (error) {
    // The lossless parse refuses a key written twice in one object, which JSON.parse let through
    // (keeping the last): the schema is refused, saying so, rather than the request failing.
    const why = error instanceof Error ? error.message : String(error)
    return {
      kind: 'report',
      report: { ...report, errors: [...report.errors, `/: ${why} [json]`] },
      text,
      contentHash: contentHashOfText(JSON.stringify(data)),
    }
  }
}
