import {
  contentHash,
  parseIgluUri,
  PatternCostMeter,
  schemaWeight,
  writtenNumbersIn,
} from '../../iglu/index.js'
import { BoundedMemo } from '../../shared/index.js'
import {
  isLargeDocument,
  type IgluValidation,
  type ValidationVerdict,
} from '../pipeline/iglu-validation.js'
import type { IgluResolver } from './iglu-resolver.js'
import {
  compileValidator,
  eventValidatorAjv,
  PATTERN_WORK_PER_DOCUMENT,
  uncompilableSchema,
  verdictOf,
  type Validate,
} from './validation-verdict.js'

export { PATTERN_WORK_PER_DOCUMENT } from './validation-verdict.js'

/** Parsed schema URIs: an event's entities name a few schemas again and again (keys are never changed). */
const schemaKeys = new BoundedMemo(1024, parseIgluUri)
/** Longer URIs are parsed each time, so that the memo holds little text. */
const REMEMBERED_URI_LENGTH = 256
const schemaKeyOf = (uri: string) =>
  uri.length > REMEMBERED_URI_LENGTH ? parseIgluUri(uri) : schemaKeys.get(uri)

/** Compiled validators kept, by schema content. */
const MAX_VALIDATORS = 2000

/**
 * Schemas that weigh more (see `schemaWeight`) are compiled and used in a worker process, when
 * validation is given one: compiling one on the event loop would hold it for a tenth of a second
 * or more (a schema at the published size limits: 230–420 ms on the 2-core machine). Iglu
 * Central's heaviest schema weighs 989 and compiles in ~30 ms.
 */
export const MAX_EVENT_LOOP_SCHEMA_WEIGHT = 1_200

/** Data against a schema, in a worker process: the pool's verdict, or why there is none. */
export type OffloadedValidation = (
  schema: Record<string, unknown>,
  data: unknown,
) => Promise<ValidationVerdict>

/** Identities already taken, by schema object: a schema first met is looked up, then learnt. */
const identities = new WeakMap<object, string>()

/**
 * A schema's identity by content, its numbers kept as written included: two bounds past a
 * double's precision are one double, yet not one bound. Taken once per schema object.
 */
function identityOf(schema: Record<string, unknown>): string {
  let identity = identities.get(schema)
  if (identity === undefined) {
    const hash = contentHash(schema)
    const written = writtenNumbersIn(schema)
    identity = written.length === 0 ? hash : `${hash} ${JSON.stringify(written)}`
    identities.set(schema, identity)
  }
  return identity
}

/** What validation knows of a schema it met before. */
type Known =
  | { readonly kind: 'compiled'; readonly validate: Validate }
  | { readonly kind: 'in-thread' }
  | { readonly kind: 'uncompilable'; readonly verdict: ValidationVerdict }

const IN_THREAD: Known = { kind: 'in-thread' }

/**
 * First compilations wait for their own turn of the event loop, one a turn: an event naming many
 * new schemas (or many requests naming new ones at once) never holds the loop for all of them.
 */
class CompileTurns {
  readonly #waiting: (() => void)[] = []
  #scheduled = false

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve)
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#waiting.shift()?.()
      // Queued in this turn's check phase, so it runs in the next turn, after its I/O.
      this.#schedule()
    })
  }
}

/**
 * Validation against schemas from the resolver, with the shared Ajv factory; compiled validators
 * are reused. A schema first met is compiled in a turn of its own, or in a worker process when it
 * is heavy and `offload` is given.
 */
export function createSchemaValidation(
  resolver: IgluResolver,
  options: { readonly patternWork?: number; readonly offload?: OffloadedValidation } = {},
): IgluValidation {
  const meter = new PatternCostMeter(options.patternWork ?? PATTERN_WORK_PER_DOCUMENT)
  const fresh = () => eventValidatorAjv(meter)
  let ajv = fresh()
  const known = new Map<string, Known>()
  // Cached repositories hand back the same object each time: on the collector's path the schema
  // is then recognised without hashing it; fresh objects (the registry's) fall back to the hash.
  let byObject = new WeakMap<object, Known>()
  const turns = new CompileTurns()
  const metaSchemaReady = new WeakSet<object>()

  function knownAlready(schema: Record<string, unknown>): Known | undefined {
    const found = byObject.get(schema)
    if (found !== undefined) return found
    const byContent = known.get(identityOf(schema))
    if (byContent !== undefined) byObject.set(schema, byContent)
    return byContent
  }

  function learn(schema: Record<string, unknown>): Known {
    const already = knownAlready(schema)
    if (already !== undefined) return already
    if (known.size >= MAX_VALIDATORS) {
      // Start afresh rather than let one Ajv instance grow without bound.
      known.clear()
      byObject = new WeakMap()
      ajv = fresh()
    }
    let learnt: Known
    if (options.offload !== undefined && schemaWeight(schema) > MAX_EVENT_LOOP_SCHEMA_WEIGHT)
      learnt = IN_THREAD
    else {
      try {
        learnt = { kind: 'compiled', validate: compileValidator(ajv, schema, fresh) }
      } catch (error) {
        learnt = { kind: 'uncompilable', verdict: uncompilableSchema(error) }
      }
    }
    known.set(identityOf(schema), learnt)
    byObject.set(schema, learnt)
    return learnt
  }

  function judged(
    what: Known,
    schema: Record<string, unknown>,
    data: unknown,
  ): ValidationVerdict | Promise<ValidationVerdict> {
    if (what.kind === 'compiled') {
      if (options.offload === undefined || !isLargeDocument(data))
        return verdictOf(what.validate, meter, schema, data)
      return options.offload(schema, data)
    }
    if (what.kind === 'uncompilable') return what.verdict
    return (options.offload as OffloadedValidation)(schema, data)
  }

  /** Data against one schema: at once when the schema was met before, else after its compilation. */
  function validateWith(
    schema: Record<string, unknown>,
    data: unknown,
  ): ValidationVerdict | Promise<ValidationVerdict> {
    const already = knownAlready(schema)
    if (already !== undefined) return judged(already, schema, data)
    return turns.next().then(() => {
      if (metaSchemaReady.has(ajv)) return judged(learn(schema), schema, data)
      // An instance's first compilation also compiles the meta-schema (two thirds of the cost of
      // a small schema's): that comes first, in a turn of its own.
      void ajv.validateSchema({})
      metaSchemaReady.add(ajv)
      return turns.next().then(() => judged(learn(schema), schema, data))
    })
  }

  /** A URI that names no schema: no repository was asked. */
  const unparseable = (): ValidationVerdict => ({
    kind: 'invalid',
    error: { error: 'ResolutionError', lookupHistory: [] },
  })

  return {
    async validate(schemaUri: string, data: unknown): Promise<ValidationVerdict> {
      const key = schemaKeyOf(schemaUri)
      if (key === null) return unparseable()
      const resolution = resolver.resolveKnown(key) ?? (await resolver.resolve(key))
      if (resolution.kind === 'missing') {
        return {
          kind: 'invalid',
          error: {
            error: 'ResolutionError',
            lookupHistory: Object.entries(resolution.history).map(([repository, attempt]) => ({
              repository,
              ...attempt,
            })),
          },
        }
      }
      return validateWith(resolution.schema, data)
    },
    validateNow(schemaUri: string, data: unknown): ValidationVerdict | undefined {
      const key = schemaKeyOf(schemaUri)
      if (key === null) return unparseable()
      const resolution = resolver.resolveKnown(key)
      if (resolution?.kind !== 'found') return undefined
      const already = knownAlready(resolution.schema)
      if (already === undefined || already.kind === 'in-thread') return undefined
      // A large document goes to a worker process: not at once.
      if (already.kind === 'compiled' && options.offload !== undefined && isLargeDocument(data))
        return undefined
      return judged(already, resolution.schema, data) as ValidationVerdict
    },
    validateWith,
  }
}
