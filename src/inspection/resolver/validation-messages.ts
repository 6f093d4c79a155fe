import { cutText } from '../../shared/index.js'
import type { DataReport } from '../pipeline/iglu-validation.js'

/** One Ajv error, as the resolver's validation reads it. */
export interface AjvIssue {
  readonly instancePath: string
  readonly schemaPath: string
  readonly keyword: string
  readonly message?: string
  readonly params: Record<string, unknown>
}

const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value

/** `/items/0/name` → `$.items[0].name`. */
export function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, token) => (/^\d+$/.test(token) ? `${path}[${token}]` : `${path}.${token}`), '$')
}

function valueAt(document: unknown, pointer: string): unknown {
  let current = document
  for (const token of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return current
}

/** A JSON value as Jackson's `asText` writes it: strings bare, containers empty. */
const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value !== null && typeof value === 'object'
      ? ''
      : String(value)

/**
 * The most characters of a report's message, path or target, and of the part of a schema that a
 * message quotes. Enrich's messages quote the whole subschema of a failed `not`/`anyOf`/`oneOf`/
 * `allOf`, every value of an `enum` and an invalid date as sent: a schema with a 900 kB
 * description made a 45 MB event of 1 kB. Past these, a text is cut and says how long it was.
 */
export const MAX_REPORT_TEXT_CHARS = 2_000
export const MAX_QUOTED_CHARS = 1_000

const bounded = (text: string) => cutText(text, MAX_REPORT_TEXT_CHARS)

/** A schema's parts as the messages quote them, bounded; each part written once, however often quoted. */
const quotedParts = new WeakMap<object, string>()

function quotedPart(value: object, write: (value: object) => string): string {
  let text = quotedParts.get(value)
  if (text === undefined) {
    text = cutText(write(value), MAX_QUOTED_CHARS)
    quotedParts.set(value, text)
  }
  return text
}

/** The keyword's value in the schema (`#/properties/a/not` → the `not` subschema), when Ajv's path leads to it. */
function keywordValue(schema: unknown, schemaPath: string): unknown {
  return schemaPath.startsWith('#') ? valueAt(schema, schemaPath.slice(1)) : undefined
}

/**
 * The message the reference pipeline's validator (networknt json-schema-validator 1.0, as Enrich
 * runs it for draft-04) gives for this error: `$.quantity: must have a maximum value of 10`.
 */
function enrichMessage(issue: AjvIssue, path: string, data: unknown, schema: unknown): string {
  const p = issue.params
  const limit = typeof p.writtenLimit === 'string' ? p.writtenLimit : String(p.limit)
  const subschema = () => {
    const value = keywordValue(schema, issue.schemaPath)
    if (value === undefined) return ''
    return ` ${value !== null && typeof value === 'object' ? quotedPart(value, (part) => JSON.stringify(part)) : JSON.stringify(value)}`
  }
  switch (issue.keyword) {
    case 'maximum':
    case 'exclusiveMaximum':
      return `${path}: must have a maximum value of ${limit}`
    case 'minimum':
    case 'exclusiveMinimum':
      return `${path}: must have a minimum value of ${limit}`
    case 'maxLength':
      return `${path}: may only be ${limit} characters long`
    case 'minLength':
      return `${path}: must be at least ${limit} characters long`
    case 'maxItems':
      return `${path}: there must be a maximum of ${limit} items in the array`
    case 'minItems':
      return `${path}: there must be a minimum of ${limit} items in the array`
    case 'maxProperties':
      return `${path}: may only have a maximum of ${limit} properties`
    case 'minProperties':
      return `${path}: should have a minimum of ${limit} properties`
    case 'multipleOf':
      return `${path}: must be multiple of ${String(p.multipleOf)}`
    case 'enum': {
      const allowed = p.allowedValues
      const listed = Array.isArray(allowed)
        ? quotedPart(allowed, (values) => (values as unknown[]).map(asText).join(', '))
        : ''
      return `${path}: does not have a value in the enumeration [${listed}]`
    }
    case 'pattern':
      return `${path}: does not match the regex pattern ${String(p.pattern)}`
    case 'uniqueItems':
      return `${path}: the items in the array must be unique`
    case 'format': {
      const format = String(p.format)
      return ['date-time', 'date', 'uuid'].includes(format)
        ? `${path}: ${asText(valueAt(data, issue.instancePath))} is an invalid ${format}`
        : `${path}: does not match the ${format} pattern`
    }
    case 'not':
      return `${path}: should not be valid to the schema${subschema()}`
    case 'anyOf':
      return `${path}: should be valid to any of the schemas${subschema()}`
    case 'oneOf':
      return `${path}: should be valid to one and only one of schema, but more than one are valid:${subschema()}`
    case 'allOf':
      return `${path}: should be valid to all the schemas${subschema()}`
    case 'dependencies':
      return `${path}: has an error with dependencies ${String(p.property)}`
    case 'additionalItems':
    case 'items':
      return `${path}[${limit}]: no validator found at this index`
    default:
      return `${path}: ${issue.message ?? 'is invalid'}`
  }
}

/**
 * An Ajv error as a data report: Enrich's wording, with the keyword, path and targets Floe gives,
 * each text at most MAX_REPORT_TEXT_CHARS.
 */
export function dataReport(issue: AjvIssue, data: unknown, schema: unknown): DataReport {
  const report = reportOf(issue, data, schema)
  return {
    message: bounded(report.message),
    path: bounded(report.path),
    keyword: report.keyword,
    targets: report.targets.map(bounded),
  }
}

function reportOf(issue: AjvIssue, data: unknown, schema: unknown): DataReport {
  const path = jsonPath(issue.instancePath)
  switch (issue.keyword) {
    case 'type': {
      const expected = ([] as unknown[]).concat(issue.params.type).map(String)
      const found = kindOf(valueAt(data, issue.instancePath))
      return {
        message:
          expected.length === 1
            ? `${path}: ${found} found, ${expected[0]} expected`
            : `${path}: ${found} found, but [${expected.join(', ')}] is required`,
        path,
        keyword: 'type',
        targets: [found, ...expected],
      }
    }
    case 'required': {
      const property = String(issue.params.missingProperty)
      return {
        message: `${path}.${property}: is missing but it is required`,
        path,
        keyword: 'required',
        targets: [property],
      }
    }
    case 'additionalProperties': {
      const property = String(issue.params.additionalProperty)
      return {
        message: `${path}.${property}: is not defined in the schema and the schema does not allow additional properties`,
        path,
        keyword: 'additionalProperties',
        targets: [property],
      }
    }
    default:
      return {
        message: enrichMessage(issue, path, data, schema),
        path,
        keyword: issue.keyword,
        targets: [],
      }
  }
}
