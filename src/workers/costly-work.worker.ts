import { checkCompatibility, ENGINE_AJV_OPTIONS } from '../compatibility/check-compatibility.js'
import { createAjv, type Ajv } from '../iglu/ajv-factory.js'
import { exactJsonText, parseJsonExactly, placeValue } from '../iglu/exact-numbers.js'
import { designSchemaProblem } from '../iglu/design-schema.js'
import { SchemaTooDeepError } from '../registry/registry.errors.js'
import { checkSchemaDocument } from '../registry/schema-validation.js'
import type { CostlyAnswer, CostlyTask, JsonPathFound } from './costly-work.js'
import { serveTasks } from './process-tasks.js'
import {
  selectKeepingTexts,
  selectPointers,
} from '../inspection/pipeline/enrichments/json-path-selection.js'
import { validateInThread } from '../inspection/resolver/thread-validation.js'

/** The most a JSONPath's selection may weigh as JSON text: it is read again on the event loop. */
const MAX_SELECTION_CHARS = 1_048_576
/**
 * The same for a selection's pointers, which weigh more than the values they point at (a short
 * text in a long array): 8 MiB holds the pointers of every value a collector payload can carry.
 */
const MAX_POINTER_CHARS = 8 * 1_048_576

/** A selection whose numbers given as texts become numbers again, their texts kept by the array. */
function keptAsWritten(found: readonly unknown[]): unknown[] {
  const kept: unknown[] = []
  found.forEach((value, at) =>
    placeValue(kept as unknown as Record<string, unknown>, String(at), value),
  )
  return kept
}

function selections(
  paths: readonly string[],
  text: string,
  select: 'values' | 'pointers',
): JsonPathFound[] {
  // Numbers a double rounds keep their digits both ways: the text comes written with them.
  const document: unknown = parseJsonExactly(text)
  return paths.map((path) => {
    try {
      const json =
        select === 'pointers'
          ? JSON.stringify(selectPointers(path, document))
          : exactJsonText(keptAsWritten(selectKeepingTexts(path, document)))
      const limit = select === 'pointers' ? MAX_POINTER_CHARS : MAX_SELECTION_CHARS
      return json.length <= limit
        ? { ok: true, json }
        : {
            ok: false,
            error: `the JSONPath ${path} selects more than ${limit / 1_048_576} MiB of JSON`,
          }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) }
    }
  })
}

// This module runs in the pool's worker processes only.

/**
 * A validator kept for the process's next tasks, as long as a task leaves nothing behind in it: user
 * schemas may declare ids that must never meet another request's schemas, so an instance that
 * holds more schemas or references after a task than before is dropped. Reuse spares recompiling
 * the meta-schema for every task (about ten times the cost of checking a small schema).
 */
class ReusableValidator {
  #ajv: Ajv | null = null
  #footprint = ''

  constructor(private readonly make: () => Ajv) {}

  use<T>(work: (ajv: Ajv) => T): T {
    if (this.#ajv === null) {
      this.#ajv = this.make()
      this.#footprint = footprintOf(this.#ajv)
    }
    const ajv = this.#ajv
    try {
      return work(ajv)
    } finally {
      if (footprintOf(ajv) !== this.#footprint) this.#ajv = null
    }
  }
}

/** What a task could leave behind: added schemas, references, and compiled entries (Ajv's cache is not public). */
const footprintOf = (ajv: Ajv): string => {
  const cached = (ajv as unknown as { _cache?: Map<unknown, unknown> })._cache?.size ?? -1
  return `${Object.keys(ajv.schemas).join(' ')}|${Object.keys(ajv.refs).join(' ')}|${cached}`
}

// Schema documents and designs are compiled only to see that they compile: their validators never run.
const forDocuments = new ReusableValidator(() =>
  createAjv({ allErrors: true, optimizeCode: false }),
)
const forDesigns = new ReusableValidator(() => createAjv({ optimizeCode: false }))
const forCompatibility = new ReusableValidator(() => createAjv(ENGINE_AJV_OPTIONS))

function answer(task: CostlyTask): CostlyAnswer {
  switch (task.kind) {
    case 'compatibility':
      // The engine removes the schemas it compiled when it ends: its validator is kept for the
      // next check unless one left something behind (a remote reference's stand-in, say).
      return {
        kind: 'compatibility',
        result: forCompatibility.use((ajv) =>
          checkCompatibility(task.candidate, task.reference, { ajv, budget: task.budget }),
        ),
      }
    case 'schema-document':
      try {
        return {
          kind: 'schema-document',
          check: forDocuments.use((ajv) => checkSchemaDocument(task.data, task.bodyText, ajv)),
        }
      } catch (error) {
        if (error instanceof SchemaTooDeepError)
          return { kind: 'schema-document', check: { kind: 'too-deep' } }
        throw error
      }
    case 'design-schema':
      return {
        kind: 'design-schema',
        problem: forDesigns.use((ajv) => designSchemaProblem(ajv, task.schema, task.field)),
      }
    case 'json-path':
      return {
        kind: 'json-path',
        found: selections(task.paths, task.text, task.select ?? 'values'),
      }
    case 'validate-data':
      return {
        kind: 'validate-data',
        verdict: validateInThread(task.schemaText, task.dataText),
      }
    case 'ping':
      return { kind: 'pong' }
    default: {
      const unknown: never = task
      throw new Error(`unknown task ${JSON.stringify(unknown)}`)
    }
  }
}

serveTasks(answer)
