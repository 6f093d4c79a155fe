import { exactJsonText, parseJsonExactly, schemaKeyUri, type SchemaKey } from '../../iglu/index.js'
import { ExpiringCache } from '../../shared/index.js'
import type { MessageEnd } from './event-store-wire.js'

/**
 * Floe's registry as the inspection thread reads it (see docs/inspection-thread.md): the main
 * thread, which holds the registry, answers each schema it is asked for with how long its own
 * cache keeps that answer; the inspection thread keeps the answer as long, so that its validators
 * find it without asking again, and forgets every answer at once when told of a deployment.
 * Schemas cross as text written with their numbers as written, read back exactly.
 */

type Schema = Record<string, unknown>

/** The registry's schemas as the resolver reads them (`RegistrySchemas` of the inspection context). */
export interface BridgedSchemas {
  lookup(key: SchemaKey): Promise<Schema | null>
  peek(key: SchemaKey): Schema | null | undefined
}

/** The main thread's registry: its answer, and until when its own cache keeps it (epoch ms). */
export interface ServedSchemas extends BridgedSchemas {
  keptUntil(key: SchemaKey): number | undefined
}

type SchemaRequest = { readonly id: number; readonly key: SchemaKey }
type SchemaMessage =
  | {
      readonly kind: 'answer'
      readonly id: number
      readonly text: string | null
      readonly keptUntil: number
    }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }
  | { readonly kind: 'forget' }

/**
 * The main thread's side: answers the schemas the other end asks for from `schemas`. `forget()`
 * tells the other end to forget every answer (call it on every deployment).
 */
export function serveRegistrySchemas(schemas: ServedSchemas, end: MessageEnd, now: () => number) {
  const listener = (message: unknown) => {
    const { id, key } = message as SchemaRequest
    schemas.lookup(key).then(
      (schema) => {
        const reply: SchemaMessage = {
          kind: 'answer',
          id,
          text: schema === null ? null : exactJsonText(schema),
          keptUntil: schemas.keptUntil(key) ?? now(),
        }
        end.postMessage(reply)
      },
      (error: unknown) =>
        end.postMessage({
          kind: 'failed',
          id,
          message: error instanceof Error ? error.message : String(error),
        } satisfies SchemaMessage),
    )
  }
  end.on('message', listener)
  return {
    forget: () => end.postMessage({ kind: 'forget' } satisfies SchemaMessage),
    stop: () => end.off('message', listener),
  }
}

/** Answers kept by the inspection thread, at most (the oldest asked go first). */
const MAX_KEPT = 10_000

/**
 * The inspection thread's side: the registry's schemas, asked of the other end once and kept as
 * long as it keeps them; lookups of one key made while it is asked share its answer.
 */
export function bridgedRegistrySchemas(
  end: MessageEnd,
  now: () => number,
): BridgedSchemas & { stop(): void } {
  // The cache's own time is never used: each answer comes with its end.
  const kept = new ExpiringCache<Schema | null>({ ttlMs: 0, maxEntries: MAX_KEPT, now })
  const asked = new Map<string, Promise<Schema | null>>()
  const waiting = new Map<
    number,
    {
      resolve: (message: SchemaMessage & { kind: 'answer' }) => void
      reject: (error: Error) => void
    }
  >()
  let nextId = 1

  const listener = (message: unknown) => {
    const reply = message as SchemaMessage
    if (reply.kind === 'forget') {
      // Lookups under way answer as asked, and are not kept; later ones ask again.
      kept.forgetAll()
      asked.clear()
      return
    }
    const pending = waiting.get(reply.id)
    waiting.delete(reply.id)
    if (reply.kind === 'answer') pending?.resolve(reply)
    else pending?.reject(new Error(reply.message))
  }
  end.on('message', listener)

  async function ask(key: SchemaKey, uri: string): Promise<Schema | null> {
    const generation = kept.generation
    const id = nextId++
    const reply = await new Promise<SchemaMessage & { kind: 'answer' }>((resolve, reject) => {
      waiting.set(id, { resolve, reject })
      end.postMessage({ id, key } satisfies SchemaRequest)
    })
    const schema = reply.text === null ? null : (parseJsonExactly(reply.text) as Schema)
    kept.set(uri, schema, generation, reply.keptUntil)
    return schema
  }

  return {
    lookup(key: SchemaKey): Promise<Schema | null> {
      const uri = schemaKeyUri(key)
      const answer = kept.get(uri)
      if (answer !== undefined) return Promise.resolve(answer.value)
      let asking = asked.get(uri)
      if (asking === undefined) {
        asking = ask(key, uri).finally(() => asked.delete(uri))
        asked.set(uri, asking)
      }
      return asking
    },
    peek: (key: SchemaKey) => kept.get(schemaKeyUri(key))?.value,
    stop() {
      end.off('message', listener)
      for (const pending of waiting.values())
        pending.reject(new Error("the registry's thread stopped answering"))
      waiting.clear()
    },
  }
}
