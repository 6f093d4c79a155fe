import ajvCompiler from '@fastify/ajv-compiler'
import serializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>
/** A route part's schema, as Fastify hands it to a compiler. */
interface RouteSchema {
  readonly schema: unknown
  readonly method?: string
  readonly url?: string
  readonly httpPart?: string
  readonly httpStatus?: string
}
type Factory<T> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => T
type Validate = ((data: unknown) => unknown) & { errors?: unknown }

// Fastify's own compilers (its dependencies, at the versions it pins), wrapped below.
const fastifyValidators = ajvCompiler as unknown as () => Factory<Validate>
type Serialize = (data: unknown) => string
const fastifySerializers = serializerSelector as unknown as () => Factory<Serialize>

/** A compilation whose error names the route and the part of it. */
function naming<T>(route: RouteSchema, compile: () => T): T {
  try {
    return compile()
  } catch (error) {
    const part = route.httpPart ?? `response ${route.httpStatus ?? ''}`
    throw new Error(
      `the ${part} schema of ${route.method ?? ''} ${route.url ?? ''} does not compile: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}

/** What `make` gives, made at the first call and the same after. */
function madeAtFirstCall<T>(make: () => T): () => T {
  let made: { readonly value: T } | null = null
  return () => (made ??= { value: make() }).value
}

/** How long one slice of background compilation may hold the event loop, in ms. */
const SLICE_MS = 10

/**
 * Route schemas compiled at first use instead of at start-up: Fastify compiles every route's
 * validators (Ajv) and response serializers (fast-json-stringify) before it listens, ~0.4 s of a
 * start and memory an idle server keeps. Each is compiled by Fastify's own compiler, with the same
 * options, the first time a request needs it (a few ms, once). `compileAll` compiles the rest, a
 * slice at a time, and names a schema that does not compile: the tests check every route with it.
 */
export class DeferredCompilers {
  readonly #pending = new Set<() => unknown>()
  #compiled = 0

  /** The `schemaController.compilersFactory` option of Fastify. */
  factory(): CompilersFactory {
    const validators = fastifyValidators()
    const serializers = fastifySerializers()
    // Each compiler too is made at its first use: Fastify's Ajv instance compiles the draft-07
    // meta-schema to check the shared schemas it is given (~20 ms of a start).
    const buildValidator: Factory<Validate> = (externalSchemas, options) => {
      const compile = madeAtFirstCall(() => validators(externalSchemas, options))
      return (route) => this.#validator(() => naming(route, () => compile()(route)))
    }
    const buildSerializer: Factory<Serialize> = (externalSchemas, options) => {
      const compile = madeAtFirstCall(() => serializers(externalSchemas, options))
      return (route) => this.#serializer(() => naming(route, () => compile()(route)))
    }
    // Fastify types its compilers per validator library; these pass Fastify's own through.
    return { buildValidator, buildSerializer } as unknown as CompilersFactory
  }

  #once<T>(compile: () => T): () => T {
    let compiled: T | undefined
    const ensure = () => {
      if (compiled === undefined) {
        compiled = compile()
        this.#pending.delete(ensure)
        this.#compiled += 1
      }
      return compiled
    }
    this.#pending.add(ensure)
    return ensure
  }

  #validator(compile: () => Validate): Validate {
    const ensure = this.#once(compile)
    // Fastify reads a failed validation's errors from the function it called.
    const validate: Validate = (data) => {
      const real = ensure()
      const result = real(data)
      validate.errors = real.errors
      return result
    }
    return validate
  }

  #serializer(compile: () => (data: unknown) => string): (data: unknown) => string {
    const ensure = this.#once(compile)
    return (data) => ensure()(data)
  }

  /** Schemas not compiled yet. */
  get pending(): number {
    return this.#pending.size
  }

  /**
   * Compiles every schema not yet compiled, a slice of at most ~10 ms per turn of the event loop;
   * resolves with how many were compiled in all, or rejects naming the first that does not compile.
   */
  async compileAll(): Promise<number> {
    while (this.#pending.size > 0) {
      const sliceEnd = performance.now() + SLICE_MS
      for (const ensure of this.#pending) {
        ensure()
        if (performance.now() >= sliceEnd) break
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    return this.#compiled
  }
}
