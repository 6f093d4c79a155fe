import ajvDraft04 from 'ajv-draft-04'
import ajvFormats from 'ajv-formats'
import { linearPatternEngine, type PatternCostMeter } from './linear-pattern.js'
import { findRefCycle, samePlaceFanOut } from './ref-cycles.js'
import { addExactBounds } from './bound-keywords.js'
import { addSetKeywords } from './set-keywords.js'
import { SELF_DESC_METASCHEMA_URI } from './self-describing.js'

/** The formats Snowplow's validator asserts; any other format name passes, as it does there. */
export const ASSERTED_FORMATS = [
  'date-time',
  'date',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uuid',
] as const

// Our own statement of the Iglu self-describing meta-schema: a draft-04 schema plus a required
// `self` (vendor, name, format, version). Registered so that schemas declaring it compile.
const selfDescribingMetaSchema = {
  id: SELF_DESC_METASCHEMA_URI,
  $schema: 'http://json-schema.org/draft-04/schema#',
  description: 'A draft-04 JSON Schema that names itself through a self object',
  allOf: [
    {
      type: 'object',
      required: ['self'],
      properties: {
        self: {
          type: 'object',
          additionalProperties: false,
          required: ['vendor', 'name', 'format', 'version'],
          properties: {
            vendor: { type: 'string', pattern: '^[a-zA-Z0-9-_.]+$' },
            name: { type: 'string', pattern: '^[a-zA-Z0-9-_]+$' },
            format: { type: 'string', pattern: '^[a-zA-Z0-9-_]+$' },
            version: { type: 'string', pattern: '^[0-9]+-[0-9]+-[0-9]+$' },
          },
        },
      },
    },
    { $ref: 'http://json-schema.org/draft-04/schema#' },
  ],
}

// Both packages are CommonJS with the real export on `.default`.
const Ajv04 = ajvDraft04.default
const addFormats = ajvFormats.default

export type Ajv = InstanceType<typeof Ajv04>

export interface AjvOptions {
  /** Collect every error (for reports) instead of stopping at the first (for speed). */
  readonly allErrors?: boolean
  /** Charged for pattern matching: a validation that uses up its budget throws PatternCostExceeded. */
  readonly patternCost?: PatternCostMeter
  /**
   * False for a validator compiled only to learn whether it compiles, and never run (a schema
   * checked before it is kept): Ajv's pass that tidies the generated code took half of a
   * 50-property schema's compile time, and changes nothing of what compiles.
   */
  readonly optimizeCode?: boolean
}

/**
 * The one way the project builds a JSON Schema validator: draft-04, Snowplow's asserted formats,
 * no type coercion, unknown keywords (such as `self`) ignored, `pattern`s run in linear time,
 * `enum` and `uniqueItems` checked in linear time, and `maximum`, `minimum` and `multipleOf` in exact decimal arithmetic.
 */
export function createAjv(options: AjvOptions = {}): Ajv {
  const ajv = new Ajv04({
    strict: false,
    allErrors: options.allErrors ?? false,
    validateFormats: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    addUsedSchema: false,
    // Remote $refs are not fetched: Snowplow's validator resolves them to {}, which accepts anything.
    loadSchema: undefined,
    logger: false,
    // User patterns run on RE2 (linear time): a hostile `pattern` cannot stall validation.
    code: {
      regExp: linearPatternEngine(options.patternCost),
      optimize: options.optimizeCode ?? true,
    },
  })
  addSetKeywords(ajv)
  addExactBounds(ajv)
  addFormats(ajv, { mode: 'full', formats: [...ASSERTED_FORMATS] })
  ajv.addMetaSchema(selfDescribingMetaSchema, SELF_DESC_METASCHEMA_URI, false)
  return ajv
}

/** Base URIs of every `$ref` that points outside the document. */
function remoteRefBases(schema: unknown): Set<string> {
  const bases = new Set<string>()
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (!Array.isArray(node)) {
      const ref = (node as Record<string, unknown>).$ref
      if (typeof ref === 'string' && !ref.startsWith('#')) bases.add(ref.split('#')[0] ?? ref)
    }
    for (const inner of Object.values(node)) stack.push(inner)
  }
  return bases
}

/**
 * Subschemas one value may be checked against at one place (see `samePlaceFanOut`): Iglu Central's
 * schemas stay far below; at about a microsecond each, the bound keeps a value's checks to
 * milliseconds.
 */
export const MAX_SAME_PLACE_CHECKS = 10_000

/**
 * A schema that is valid JSON Schema but that Floe will not run: checking one value would cost
 * too much. Its compatibility and the data checked against it are undecidable, not invalid.
 */
export class SchemaTooCostlyError extends Error {}

/**
 * Compiles a (self-describing) schema. Remote `$ref`s resolve to `{}`, which accepts anything,
 * as in Snowplow's validator. Throws when the schema cannot be compiled (bad regex, bad pointer,
 * a `$ref` cycle that never reaches a schema, subschemas that multiply at one place...).
 */
export function compileSchema(ajv: Ajv, schema: object): ReturnType<Ajv['compile']> {
  const cycle = findRefCycle(schema)
  if (cycle !== null)
    throw new Error(`$ref cycle that never reaches a schema: ${cycle.join(' → ')}`)
  if (samePlaceFanOut(schema, MAX_SAME_PLACE_CHECKS) > MAX_SAME_PLACE_CHECKS)
    throw new SchemaTooCostlyError(
      `validating one value would check it against more than ${MAX_SAME_PLACE_CHECKS} subschemas at one place ($ref targets and allOf/anyOf/oneOf/not/dependencies multiply, or refer back to themselves there)`,
    )
  for (const base of remoteRefBases(schema)) {
    if (base !== '' && ajv.getSchema(base) === undefined) ajv.addSchema({}, base)
  }
  return ajv.compile(schema)
}

/** A validator of a fixed schema, compiled the first time it is called. */
export interface ValidatorOnFirstUse {
  (value: unknown): boolean
  /** The last call's problems, as Ajv reports them (null after a valid value). */
  readonly errors: ReturnType<Ajv['compile']>['errors']
}

/**
 * Validators of fixed schemas (request bodies), compiled at their first call instead of when their
 * module loads: compiling them (and the draft-04 meta-schema of their Ajv instance, made at the first
 * compile too) took ~100 ms of every start, before the first request could be answered.
 */
export function validatorsOnFirstUse<const Names extends string>(
  schemas: Readonly<Record<Names, object>>,
  options: AjvOptions = {},
): Record<Names, ValidatorOnFirstUse> {
  let ajv: Ajv | null = null
  const validators = {} as Record<Names, ValidatorOnFirstUse>
  for (const name of Object.keys(schemas) as Names[]) {
    let compiled: ReturnType<Ajv['compile']> | null = null
    const validate = (value: unknown): boolean => {
      ajv ??= createAjv(options)
      compiled ??= ajv.compile(schemas[name])
      return compiled(value) === true
    }
    Object.defineProperty(validate, 'errors', { get: () => compiled?.errors ?? null })
    validators[name] = validate as ValidatorOnFirstUse
  }
  return validators
}

/** What the validators report of one problem. */
export interface ValidationIssue {
  readonly keyword?: string
  readonly instancePath?: string
  readonly message?: string
  readonly params?: Record<string, unknown>
}

/**
 * One validation problem as a sentence under `root` (`body`, `spec`…): an unknown field is named,
 * where Ajv's own text only says that there is one.
 */
export function validationIssueText(root: string, issue: ValidationIssue | undefined): string {
  const where = `${root}${issue?.instancePath ?? ''}`
  const unknown =
    issue?.keyword === 'additionalProperties' ? issue.params?.additionalProperty : undefined
  return typeof unknown === 'string'
    ? `${where}/${unknown} is not a known field`
    : `${where} ${issue?.message ?? 'is not valid'}`
}

/**
 * A value outside a union of constants (`DEV` or `PROD`) as one issue listing the allowed values,
 * where Ajv reports each constant missed and then the `anyOf`; undefined for any other problem.
 */
export function allowedValuesIssue(
  issues: readonly ValidationIssue[] | null | undefined,
): ValidationIssue | undefined {
  const union = issues?.find((issue) => issue.keyword === 'anyOf')
  if (issues == null || union === undefined) return undefined
  const at = union.instancePath ?? ''
  const values: unknown[] = []
  for (const issue of issues) {
    // A nested union (a union of constants, or null) reports its own anyOf at the same place.
    if (issue.keyword === 'anyOf') continue
    const path = issue.instancePath ?? ''
    // A branch that failed inside the value (`/contexts/0 must be string` beside `/contexts must
    // be null`): that is the problem to name, not the list of constants.
    if (path.startsWith(`${at}/`)) return undefined
    if (path !== at) continue
    if (issue.keyword === 'const') values.push(issue.params?.allowedValue)
    else if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues))
      for (const value of issue.params.allowedValues as unknown[]) values.push(value)
    else if (issue.keyword === 'type' && issue.params?.type === 'null') values.push(null)
    else return undefined
  }
  if (values.length === 0) return undefined
  const written = values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
  return {
    keyword: 'enum',
    instancePath: at,
    message: `must be one of ${written.join(', ')}`,
    params: { allowedValues: values },
  }
}
