import { isDeepStrictEqual } from 'node:util'
import type { NFA } from 'refa'
import {
  compileSchema,
  createAjv,
  type Ajv,
  type AjvOptions,
  schemaSizeProblem,
} from '../iglu/index.js'
import { Budget, BudgetExceeded, DEFAULT_BUDGET, type BudgetLimits } from './budget.js'
import type { CompatibilityResult, Reason } from './compatibility-result.js'
import { proveInclusion } from './inclusion-prover.js'
import { prepareSchema, type Preparation, type Schema } from './prepared-schema.js'
import type { ProofContext } from './proof-context.js'
import { intersect, lengthLanguage, patternLanguage } from './regex-language.js'
import { candidateValues } from './witness-search.js'
import { directedValues } from './directed-witnesses.js'
import { boundedJsonLength, MAX_WITNESS_CHARS } from './witness-size.js'

export interface CompatibilityOptions {
  /** The validator the answer is relative to; by default one made by the shared factory. */
  /** The validator whose behaviour is proved about (callers keep one: compiling is costly). */
  readonly ajv: Ajv
  readonly budget?: Partial<BudgetLimits>
  /** Answer `compatible` at once for identical schemas (true by default; tests turn it off to exercise the prover). */
  readonly identityShortcut?: boolean
}

/**
 * The validator a server's checks prove about (the worker processes', and the benchmark's). With
 * allErrors its generated code is flat rather than nested per property: a 1 000-property schema
 * compiles in a fifth of the time, and never deep enough to overflow the stack. Without Ajv's pass
 * that tidies the generated code: a check compiles both schemas and the subschemas it meets, and
 * runs each a few times, so the pass cost more than it saved (a pair of 50-property schemas checked
 * in ~10 ms instead of ~20-27).
 */
export const ENGINE_AJV_OPTIONS: AjvOptions = { allErrors: true, optimizeCode: false }

const ANNOTATIONS = ['self', '$schema', 'title', 'description', 'default', 'examples', '$comment']
const MAX_REASONS = 20

/** A copy of the document without root annotations (an Iglu `$schema` would make Ajv demand `self`). */
function document(schema: unknown): object {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return {}
  const copy: Record<string, unknown> = structuredClone(schema as Record<string, unknown>)
  for (const key of ANNOTATIONS) delete copy[key]
  return copy
}

/**
 * Whether every JSON value the candidate accepts is also accepted by the reference, with validation
 * as the shared Ajv runs it. `compatible` is proved by sound rules; `incompatible` comes with a witness
 * that Ajv accepts under the candidate and rejects under the reference; otherwise `undecidable`.
 */
export function checkCompatibility(
  candidate: unknown,
  reference: unknown,
  options: CompatibilityOptions,
): CompatibilityResult {
  const ajv = options.ajv
  const limits: BudgetLimits = { ...DEFAULT_BUDGET, ...options.budget }
  const candidateDoc = document(candidate)
  const referenceDoc = document(reference)
  const compiled: object[] = []
  const compile = (schema: object) => {
    const validate = compileSchema(ajv, schema)
    compiled.push(schema)
    return validate
  }
  // Two documents declaring the same ids cannot share one Ajv: the second gets a validator of its own.
  const compileDocument = (schema: object) => {
    try {
      return compile(schema)
    } catch (error) {
      if (!(error instanceof Error) || !/already exists|more than one schema/.test(error.message))
        throw error
      return compileSchema(createAjv(ENGINE_AJV_OPTIONS), schema)
    }
  }
  if (options.identityShortcut !== false && isDeepStrictEqual(candidate, reference))
    return { outcome: 'compatible', reasons: [] }
  // Sizes past the published limits are not compiled at all: undecidable at once, naming the limit.
  for (const [side, schema] of [
    ['candidate', candidate],
    ['reference', reference],
  ] as const) {
    const problem = schemaSizeProblem(schema)
    if (problem !== null)
      return {
        outcome: 'undecidable',
        reasons: [
          {
            code: 'budget',
            schema: side,
            pointer: '',
            detail: `the ${side} is too large to check: ${problem}`,
          },
        ],
      }
  }
  try {
    let validCandidate: ReturnType<Ajv['compile']>
    let validReference: ReturnType<Ajv['compile']>
    try {
      validCandidate = compileDocument(candidateDoc)
      validReference = compileDocument(referenceDoc)
    } catch (error) {
      const detail = error instanceof Error ? error.message.slice(0, 300) : String(error)
      return {
        outcome: 'undecidable',
        reasons: [
          {
            code: 'invalid-schema',
            schema: compiled.length === 0 ? 'candidate' : 'reference',
            pointer: '',
            detail,
          },
        ],
      }
    }

    // The proof gets most of the time; the witness search what is left, with a floor of its own.
    const started = performance.now()
    const proofBudget = new Budget({ ...limits, maxMillis: limits.maxMillis * 0.7 })
    const reasons: Reason[] = []
    const hints: unknown[] = []
    const languages = new Map<string, NFA>()
    // Keyed by content: the prover builds equal subschemas afresh (meets, kind restrictions).
    const subValidators = new Map<string, ReturnType<Ajv['compile']>>()
    const strings = (
      patterns: readonly string[],
      minLength: number,
      maxLength: number | undefined,
    ): NFA => {
      const key = JSON.stringify([patterns, minLength, maxLength])
      let language = languages.get(key)
      if (language === undefined) {
        const parts = patterns.map((p) => patternLanguage(p, limits.maxAutomatonStates))
        if (minLength > 0 || maxLength !== undefined)
          parts.push(lengthLanguage(minLength, maxLength, limits.maxAutomatonStates))
        language = intersect(parts, limits.maxAutomatonStates)
        languages.set(key, language)
      }
      return language
    }
    const accepts = (schema: Schema, value: unknown): boolean => {
      const key = JSON.stringify(schema)
      let validate = subValidators.get(key)
      if (validate === undefined) {
        validate = compile(schema as object)
        subValidators.set(key, validate)
      }
      return validate(value) === true
    }
    const ctx: ProofContext = {
      budget: proofBudget,
      maxAutomatonStates: limits.maxAutomatonStates,
      prove: (l, r, pointer) => proveInclusion(l, r, ctx, pointer),
      fail(code, pointer, detail) {
        if (reasons.length < MAX_REASONS * 5)
          reasons.push({ code, schema: 'reference', pointer, detail })
        return false
      },
      acceptsAll: (schema, values) => values.every((v) => accepts(schema, v)),
      strings,
      hint: (value) => {
        if (hints.length < 200) hints.push(value)
      },
    }

    let preparedCandidate: Preparation
    let preparedReference: Preparation
    try {
      preparedCandidate = prepareSchema(candidateDoc, 'candidate', proofBudget)
      preparedReference = prepareSchema(referenceDoc, 'reference', proofBudget)
    } catch (error) {
      // Schemas with more subschemas than the budget's visits: too large to reason about.
      if (!(error instanceof BudgetExceeded)) throw error
      return {
        outcome: 'undecidable',
        reasons: [
          {
            code: 'budget',
            schema: 'reference',
            pointer: '',
            detail: `preparing the schemas: ${error.message}`,
          },
        ],
      }
    }
    const refProblems = [...preparedCandidate.reasons, ...preparedReference.reasons]
    let proved = false
    try {
      proved = proveInclusion(preparedCandidate.schema, preparedReference.schema, ctx, '')
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error
      reasons.push({ code: 'budget', schema: 'reference', pointer: '', detail: error.message })
    }
    if (proved && refProblems.length === 0) return { outcome: 'compatible', reasons: [] }

    const searchBudget = new Budget({
      ...limits,
      maxMillis: Math.max(
        limits.maxMillis - (performance.now() - started),
        limits.maxMillis * 0.3,
        5,
      ),
    })
    /** Whether a value was passed over for its size. */
    let tooLarge = false
    const search = {
      budget: searchBudget,
      hints,
      strings,
      accepts,
      tooLarge: () => {
        tooLarge = true
      },
    }
    const witnessAmong = (values: readonly unknown[]): { value: unknown } | null => {
      for (const value of values) {
        searchBudget.visit()
        if (validCandidate(value) !== true || validReference(value) === true) continue
        if (boundedJsonLength(value) <= MAX_WITNESS_CHARS) return { value }
        tooLarge = true
      }
      return null
    }
    try {
      // First values aimed at where the proof failed, then the broad search.
      const failedAt = reasons.map((reason) => reason.pointer).filter((pointer) => pointer !== '')
      const found =
        witnessAmong(
          directedValues(preparedCandidate.schema, preparedReference.schema, failedAt, search),
        ) ??
        witnessAmong([
          ...candidateValues(preparedCandidate.schema, preparedReference.schema, search),
          ...hints,
        ])
      // A witness found where a remote $ref stood in as {} proves nothing about the real schemas.
      const remote = refProblems.filter((reason) => reason.code === 'remote-ref')
      if (found !== null && remote.length > 0)
        return {
          outcome: 'undecidable',
          reasons: remote.slice(0, MAX_REASONS).map((reason) => ({
            ...reason,
            detail: `${reason.detail}: a value tells the schemas apart only with that stand-in`,
          })),
        }
      if (found !== null) {
        // Run again for the errors: the reference's last call may have been on another value.
        // Never asynchronous: no schema here is $async.
        void validReference(found.value)
        const error = validReference.errors?.[0]
        return {
          outcome: 'incompatible',
          witness: found.value,
          path: error?.instancePath ?? '',
          schemaPath: error?.schemaPath ?? '',
          reasons: [],
        }
      }
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error
      reasons.push({
        code: 'budget',
        schema: 'reference',
        pointer: '',
        detail: `witness search: ${error.message}`,
      })
    }
    if (tooLarge)
      reasons.push({
        code: 'budget',
        schema: 'reference',
        pointer: '',
        detail: `witness search: values over ${MAX_WITNESS_CHARS} characters as JSON, the most a witness may take, were left out, and no smaller one tells the schemas apart`,
      })
    const all = [...refProblems, ...reasons]
    const unique = all.filter(
      (r, i) =>
        all.findIndex(
          (o) => o.code === r.code && o.pointer === r.pointer && o.schema === r.schema,
        ) === i,
    )
    return {
      outcome: 'undecidable',
      reasons:
        unique.length > 0
          ? unique.slice(0, MAX_REASONS)
          : [
              {
                code: 'not-proved',
                schema: 'reference',
                pointer: '',
                detail: 'no proof and no witness',
              },
            ],
    }
  } finally {
    for (const schema of compiled) ajv.removeSchema(schema)
  }
}
