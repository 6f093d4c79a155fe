import { createHash } from 'node:crypto'
import md2 from 'js-md2'
import { copyWrittenNumbers } from '../../../iglu/index.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import {
  INLINE_VALUES,
  isDirectPath,
  largerThan,
  selectPointers,
  type OffloadedSelect,
} from './json-path-selection.js'
import { entitiesOf, matchesCriterion, type EntityField } from './lookup-inputs.js'
import type { PiiConfig, PiiHashFunction, PiiJsonLocator } from './pii-config.js'

/**
 * The PII pseudonymization enrichment: each configured atomic field, and each text value a
 * configured JSONPath selects in an entity whose schema matches, is replaced by the lowercase hex
 * hash of the value followed by the salt (UTF-8), as Enrich does. A JSONPath that selects an array
 * has the array's text items hashed; numbers, booleans, null and objects are left as they are, and
 * a path that selects nothing changes nothing. Entities are copied where they change (never
 * changed in place), since an enrichment's entity may be shared by many events (a lookup's cache).
 * Enrich's identification event (`emitEvent`) goes to a stream of its own, which Micro does not
 * keep, so Floe does not make one either.
 */

export type Pseudonymize = (clear: string) => string

/** How an enrichment failure of this step names it. */
export const PII_IDENTIFIER = 'pii'

const NODE_ALGORITHMS: Readonly<Record<Exclude<PiiHashFunction, 'MD2'>, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
}

/** A surrogate without its pair: Java's UTF-8 encoder writes it as `?`, Node's as U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** The hash of `clear + salt` as Enrich computes it (`DigestUtils` over the UTF-8 bytes, lowercase hex). */
export function pseudonymizer(hashFunction: PiiHashFunction, salt: string): Pseudonymize {
  // OpenSSL 3 has no MD2: js-md2 encodes the text as UTF-8 itself.
  if (hashFunction === 'MD2') return (clear) => md2((clear + salt).replace(LONE_SURROGATE, '?'))
  const algorithm = NODE_ALGORITHMS[hashFunction]
  return (clear) =>
    createHash(algorithm)
      .update((clear + salt).replace(LONE_SURROGATE, '?'), 'utf8')
      .digest('hex')
}

/** RFC 6901 tokens of a JSON pointer (`''` is the whole document). */
function pointerTokens(pointer: string): string[] {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
}

function childOf(container: unknown, token: string): unknown {
  if (Array.isArray(container)) return container[Number(token)]
  if (container !== null && typeof container === 'object' && Object.hasOwn(container, token))
    return (container as Record<string, unknown>)[token]
  return undefined
}

/** Sets an own property, `__proto__` included (an assignment would set the prototype). */
function setChild(container: object, token: string, value: unknown): void {
  if (Array.isArray(container)) container[Number(token)] = value
  else
    Object.defineProperty(container, token, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    })
}

/** A copy of a container, its numbers kept as written, made once per document (`owned`). */
function ownedCopy(value: object, owned: Set<object>): object {
  if (owned.has(value)) return value
  const copy: object = Array.isArray(value) ? [...(value as unknown[])] : { ...value }
  copyWrittenNumbers(value, copy)
  owned.add(copy)
  return copy
}

/** What a selected value becomes: a text hashed, an array's texts hashed; undefined when it stays. */
function pseudonymized(value: unknown, hash: Pseudonymize, owned: Set<object>): unknown {
  if (typeof value === 'string') return hash(value)
  if (!Array.isArray(value) || !value.some((item) => typeof item === 'string')) return undefined
  const copy = ownedCopy(value, owned) as unknown[]
  copy.forEach((item, at) => {
    if (typeof item === 'string') copy[at] = hash(item)
  })
  return copy
}

/**
 * Whether a pointer's value is an item of an array selected before it. Enrich (Jayway's `map`)
 * replaces a selected array by a new one, its texts hashed, so the pointers selected inside it
 * afterwards (`$..*` lists an array before its items) act on the array it left: they change
 * nothing, and each text is hashed once. An object or array inside it is carried over, so the
 * pointers below that still count.
 */
const inSelectedArray = (pointer: string, selectedArrays: ReadonlySet<string>) =>
  pointer !== '' && selectedArrays.has(pointer.slice(0, pointer.lastIndexOf('/')))

/** The document with the values at `pointers` pseudonymized, copied where it changed; itself when nothing did. */
export function pseudonymizeAt(
  document: unknown,
  pointers: readonly string[],
  hash: Pseudonymize,
  owned: Set<object> = new Set(),
): unknown {
  let result = document
  const selectedArrays = new Set<string>()
  for (const pointer of pointers) {
    if (inSelectedArray(pointer, selectedArrays)) continue
    const tokens = pointerTokens(pointer)
    let value: unknown = result
    for (const token of tokens) value = childOf(value, token)
    if (Array.isArray(value)) selectedArrays.add(pointer)
    const replacement = pseudonymized(value, hash, owned)
    if (replacement === undefined) continue
    if (tokens.length === 0) {
      result = replacement
      continue
    }
    let container = ownedCopy(result as object, owned)
    result = container
    for (const token of tokens.slice(0, -1)) {
      const child = ownedCopy(childOf(container, token) as object, owned)
      setChild(container, token, child)
      container = child
    }
    setChild(container, tokens[tokens.length - 1]!, replacement)
  }
  return result
}

/** Where a JSONPath's selection is made: on the event loop, or (a walking path over a large entity) off it. */
function runsInline(path: string, data: unknown, offload: OffloadedSelect | undefined): boolean {
  return offload === undefined || isDirectPath(path) || !largerThan(data, INLINE_VALUES)
}

async function offloadedPointers(
  offload: OffloadedSelect,
  path: string,
  data: unknown,
): Promise<readonly string[]> {
  const [found] = await offload([path], JSON.stringify(data), 'pointers')
  if (found === undefined || !found.ok) throw new Error(found?.error ?? 'no selection')
  return found.found as string[]
}

/**
 * The pointers of the text values to hash, found one at a time in the document as it stands: a
 * selected text itself, each text item of a selected array (so that no one pointer stands for
 * more than one hash).
 */
function* textPointers(current: () => unknown, pointers: readonly string[]): Generator<string> {
  const selectedArrays = new Set<string>()
  for (const pointer of pointers) {
    if (inSelectedArray(pointer, selectedArrays)) continue
    let value: unknown = current()
    for (const token of pointerTokens(pointer)) value = childOf(value, token)
    if (typeof value === 'string') yield pointer
    else if (Array.isArray(value)) {
      selectedArrays.add(pointer)
      for (let at = 0; at < value.length; at++)
        if (typeof value[at] === 'string') yield `${pointer}/${at}`
    }
  }
}

/** Hashes done between two turns of the event loop when an event's entities are large. */
const HASHES_PER_TURN = 1000

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The next HASHES_PER_TURN pointers of a sequence. */
function take(pointers: Iterator<string>): string[] {
  const slice: string[] = []
  for (let next = pointers.next(); !next.done; next = pointers.next()) {
    slice.push(next.value)
    if (slice.length === HASHES_PER_TURN) break
  }
  return slice
}

/** The entities of one field that some locator's criterion matches, with those locators. */
interface EntityWork {
  readonly field: EntityField
  readonly at: number
  readonly entity: SelfDescribing
  readonly locators: readonly PiiJsonLocator[]
}

function replaceEntity(event: EnrichedEvent, work: EntityWork, data: unknown): void {
  if (data === work.entity.data) return
  const entity = { schema: work.entity.schema, data }
  if (work.field === 'contexts') event.contexts[work.at] = entity
  else if (work.field === 'derived_contexts') event.derivedContexts[work.at] = entity
  else event.unstructEvent = entity
}

/**
 * The step. Synchronous while the matching entities hold at most INLINE_VALUES values in all;
 * past that it waits: walking JSONPaths over a large entity select in the worker pool, and the
 * hashes are done HASHES_PER_TURN at a time, so that no event stalls the event loop. A JSONPath
 * that fails on a document selects nothing, as in Enrich; one that could not be run off the event
 * loop (a limit of the worker pool) is an enrichment failure, so that a value it might have
 * selected is never kept in the clear.
 */
export function createPiiPseudonymizationStep(
  config: PiiConfig,
  schemaKey: string,
  offload?: OffloadedSelect,
) {
  const hash = pseudonymizer(config.hashFunction, config.salt)
  const enrichment = { schemaKey, identifier: PII_IDENTIFIER }
  const fields = [...new Set(config.json.map((locator) => locator.field))]

  function entityWork(event: EnrichedEvent): EntityWork[] {
    const found: EntityWork[] = []
    for (const field of fields)
      entitiesOf(event, field).forEach((entity, at) => {
        const locators = config.json.filter(
          (l) => l.field === field && matchesCriterion(entity.schema, l.criterion),
        )
        if (locators.length > 0) found.push({ field, at, entity, locators })
      })
    return found
  }

  async function pseudonymizeLarge(event: EnrichedEvent, works: readonly EntityWork[]) {
    for (const work of works) {
      const owned = new Set<object>()
      let data = work.entity.data
      for (const { path } of work.locators) {
        const inline = runsInline(path, data, offload)
        const selected = inline
          ? selectPointers(path, data)
          : await offloadedPointers(offload!, path, data)
        // The hashing starts on a turn of its own, not in the one that read the pool's answer.
        if (!inline) await nextTurn()
        const texts = textPointers(() => data, selected)
        for (let slice = take(texts); slice.length > 0; slice = take(texts)) {
          data = pseudonymizeAt(data, slice, hash, owned)
          await nextTurn()
        }
      }
      replaceEntity(event, work, data)
    }
  }

  async function finishLarge(
    event: EnrichedEvent,
    works: readonly EntityWork[],
    failures: EnrichmentFailure[],
  ) {
    try {
      await pseudonymizeLarge(event, works)
    } catch (error) {
      failures.push({
        enrichment,
        message: { error: error instanceof Error ? error.message : String(error) },
      })
    }
  }

  return function piiPseudonymizationStep(
    event: EnrichedEvent,
    headers: readonly string[],
    failures: EnrichmentFailure[],
  ): void | Promise<void> {
    if (
      config.anonymousOnly &&
      !headers.some((line) => line.toLowerCase().startsWith('sp-anonymous'))
    )
      return
    for (const field of config.scalars) {
      const value = event.fields[field]
      if (typeof value === 'string') event.fields[field] = hash(value)
    }
    if (fields.length === 0) return
    const works = entityWork(event)
    if (
      largerThan(
        works.map((work) => work.entity.data),
        INLINE_VALUES,
      )
    )
      return finishLarge(event, works, failures)
    for (const work of works) {
      const owned = new Set<object>()
      let data = work.entity.data
      for (const { path } of work.locators)
        data = pseudonymizeAt(data, selectPointers(path, data), hash, owned)
      replaceEntity(event, work, data)
    }
  }
}
