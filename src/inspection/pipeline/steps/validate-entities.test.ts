import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { configureFuzzSeed, FUZZ_SEED } from '../../../../test/support/fuzz-seed.js'
import { fuzzRuns } from '../../../../test/support/fuzz-settings.js'
import { emptyEvent } from '../canonical-event.js'
import type { IgluValidation, ValidationVerdict } from '../iglu-validation.js'
import { RepeatedContexts } from './repeated-contexts.js'
import { validateEntities } from './validate-entities.js'

configureFuzzSeed()

const CONTEXTS = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'
const UNSTRUCT = 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0'

/** How the fake resolver knows a schema: at once, only after a lookup, or not at all. */
type Knowledge = 'known' | 'looked-up' | 'missing'

/**
 * Validation against a table of schemas by name: data `{ok: false}` is invalid, anything else valid. `validateNow` answers
 * only the schemas known at once; `lookups` records the order in which verdicts were asked for.
 */
function fakeIglu(knowledge: ReadonlyMap<string, Knowledge>, syncAnswers: boolean) {
  const lookups: string[] = []
  const verdict = (uri: string, data: unknown): ValidationVerdict => {
    if (knowledge.get(uri) === 'missing')
      return { kind: 'invalid', error: { error: 'ResolutionError', lookupHistory: [] } }
    return (data as { ok?: unknown } | null)?.ok === false
      ? { kind: 'invalid', error: { error: 'ValidationError', dataReports: [] } }
      : { kind: 'valid' }
  }
  const iglu: IgluValidation = {
    async validate(uri, data) {
      lookups.push(uri)
      // A lookup takes a few turns of the event loop, as a repository's answer would.
      await new Promise((resolve) => setImmediate(resolve))
      return verdict(uri, data)
    },
    validateNow(uri, data) {
      if (!syncAnswers || knowledge.get(uri) !== 'known') return undefined
      lookups.push(uri)
      return verdict(uri, data)
    },
    validateWith: () => ({ kind: 'valid' }),
  }
  return { iglu, lookups }
}

const schemaName = fc.constantFrom('a', 'b', 'c', 'd')
const uriOf = (name: string) => `iglu:com.acme/${name}/jsonschema/1-0-0`
const entity = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ schema: schemaName.map(uriOf), data: fc.record({ ok: fc.boolean() }) }),
  },
  { weight: 1, arbitrary: fc.constant({ schema: 'not a uri', data: {} }) },
  { weight: 1, arbitrary: fc.constant(42) },
)
const knowledge = fc.record({
  a: fc.constantFrom<Knowledge>('known', 'looked-up', 'missing'),
  b: fc.constantFrom<Knowledge>('known', 'looked-up', 'missing'),
  c: fc.constantFrom<Knowledge>('known', 'looked-up', 'missing'),
  d: fc.constantFrom<Knowledge>('known', 'looked-up', 'missing'),
  contexts: fc.constantFrom<Knowledge>('known', 'looked-up'),
  unstruct: fc.constantFrom<Knowledge>('known', 'looked-up'),
})

/** The resolver's knowledge of each schema, as drawn. */
const schemaTable = (known: Record<'a' | 'b' | 'c' | 'd' | 'contexts' | 'unstruct', Knowledge>) =>
  new Map<string, Knowledge>([
    ...(['a', 'b', 'c', 'd'] as const).map((n): [string, Knowledge] => [uriOf(n), known[n]]),
    [CONTEXTS, known.contexts],
    [UNSTRUCT, known.unstruct],
  ])

async function check(
  parameters: Map<string, string>,
  table: Map<string, Knowledge>,
  syncAnswers: boolean,
) {
  const event = emptyEvent()
  const { iglu, lookups } = fakeIglu(table, syncAnswers)
  const result = validateEntities(event, parameters, iglu)
  const messages = await result
  return {
    waited: result instanceof Promise,
    outcome: { messages, contexts: event.contexts, unstruct: event.unstructEvent, lookups },
  }
}

describe(`validateEntities (seed ${FUZZ_SEED})`, () => {
  it('gives the same messages, entities and order whether schemas are known at once or looked up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entity, { maxLength: 5 }),
        fc.option(entity, { nil: undefined }),
        knowledge,
        async (contexts, unstruct, known) => {
          const table = schemaTable(known)
          const parameters = new Map<string, string>()
          parameters.set('co', JSON.stringify({ schema: CONTEXTS, data: contexts }))
          if (unstruct !== undefined)
            parameters.set('ue_pr', JSON.stringify({ schema: UNSTRUCT, data: unstruct }))
          const now = await check(parameters, table, true)
          const later = await check(parameters, table, false)
          expect(now.outcome).toEqual(later.outcome)
          expect(later.waited).toBe(true)
          // Waiting only when some schema asked for had to be looked up.
          const lookedUp = now.outcome.lookups.some((uri) => table.get(uri) !== 'known')
          expect(now.waited).toBe(lookedUp)
        },
      ),
      { numRuns: fuzzRuns(300, 3000) },
    )
  })

  it('answers at once when every schema is known', () => {
    const table = new Map<string, Knowledge>([
      [CONTEXTS, 'known'],
      [uriOf('a'), 'known'],
    ])
    const { iglu } = fakeIglu(table, true)
    const event = emptyEvent()
    const parameters = new Map([
      [
        'co',
        JSON.stringify({
          schema: CONTEXTS,
          data: [
            { schema: uriOf('a'), data: { ok: true } },
            { schema: uriOf('a'), data: { ok: false } },
          ],
        }),
      ],
    ])
    const messages = validateEntities(event, parameters, iglu)
    expect(messages).not.toBeInstanceOf(Promise)
    expect(messages).toEqual([
      { schemaKey: uriOf('a'), error: { error: 'ValidationError', dataReports: [] } },
    ])
    expect(event.contexts).toEqual([{ schema: uriOf('a'), data: { ok: true } }])
  })

  it('takes the wrappers of model 1, revision 0 only, as Enrich does (1-0-*)', () => {
    const { iglu } = fakeIglu(new Map(), true)
    const event = emptyEvent()
    const wrapper = 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-1-0'
    const messages = validateEntities(
      event,
      new Map([
        ['ue_pr', JSON.stringify({ schema: wrapper, data: { schema: uriOf('a'), data: {} } })],
      ]),
      iglu,
    )
    expect(messages).toEqual([
      {
        schemaKey: wrapper,
        schemaCriterion: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-*',
      },
    ])
    expect(event.unstructEvent).toBeNull()
  })
})

describe(`one payload's repeated contexts (seed ${FUZZ_SEED})`, () => {
  const knownTable = new Map<string, Knowledge>([
    [CONTEXTS, 'known'],
    [uriOf('a'), 'known'],
  ])
  const contextsOf = (...data: unknown[]) =>
    new Map([['co', JSON.stringify({ schema: CONTEXTS, data })]])

  it('parses and validates a text once, later events of the payload sharing its entities', () => {
    const { iglu, lookups } = fakeIglu(knownTable, true)
    const repeated = new RepeatedContexts()
    const parameters = contextsOf({ schema: uriOf('a'), data: { ok: true } })
    const first = emptyEvent()
    const second = emptyEvent()
    expect(validateEntities(first, parameters, iglu, repeated)).toEqual([])
    // Another string of the same text, as each event of a batch has its own.
    const again = new Map([['co', ` ${parameters.get('co')!}`.slice(1)]])
    expect(validateEntities(second, again, iglu, repeated)).toEqual([])
    expect(lookups).toEqual([CONTEXTS, uriOf('a')])
    expect(second.contexts).toHaveLength(1)
    expect(second.contexts[0]).toBe(first.contexts[0])
    // Each event has its own list: an enrichment replacing one event's entity leaves the other's.
    expect(second.contexts).not.toBe(first.contexts)
  })

  it('validates again a text that had an invalid entity, and gives the same messages', () => {
    const { iglu, lookups } = fakeIglu(knownTable, true)
    const repeated = new RepeatedContexts()
    const parameters = contextsOf(
      { schema: uriOf('a'), data: { ok: true } },
      { schema: uriOf('a'), data: { ok: false } },
    )
    const outcomes = [emptyEvent(), emptyEvent()].map((event) => ({
      messages: validateEntities(event, parameters, iglu, repeated),
      contexts: event.contexts,
    }))
    expect(outcomes[1]).toEqual(outcomes[0])
    expect(outcomes[0]!.messages).toHaveLength(1)
    expect(lookups).toHaveLength(6)
  })

  it('gives each event of a payload what it gets alone, whatever the texts repeat and the schemas', async () => {
    // A few texts, so that they repeat; each event also draws whether it carries an unstruct event.
    // One text holds a number a double rounds: its entities keep it as written.
    const text = fc.oneof(
      fc.array(entity, { maxLength: 3 }).map((data) => JSON.stringify({ schema: CONTEXTS, data })),
      fc.constant(
        `{"schema":"${CONTEXTS}","data":[{"schema":"${uriOf('a')}","data":{"n":12345678901234567891}}]}`,
      ),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.option(entity, { nil: undefined })), {
          minLength: 1,
          maxLength: 12,
        }),
        knowledge,
        fc.boolean(),
        async (texts, picks, known, syncAnswers) => {
          const table = schemaTable(known)
          const repeated = new RepeatedContexts()
          for (const [pick, unstruct] of picks) {
            const parameters = new Map<string, string>([['co', texts[pick % texts.length]!]])
            if (unstruct !== undefined)
              parameters.set('ue_pr', JSON.stringify({ schema: UNSTRUCT, data: unstruct }))
            const shared = emptyEvent()
            const sharedMessages = await validateEntities(
              shared,
              parameters,
              fakeIglu(table, syncAnswers).iglu,
              repeated,
            )
            const alone = emptyEvent()
            const aloneMessages = await validateEntities(
              alone,
              parameters,
              fakeIglu(table, syncAnswers).iglu,
            )
            const outcome = (event: typeof alone, messages: unknown[]) => ({
              messages,
              contexts: event.contexts,
              unstruct: event.unstructEvent,
              writtenNumbers: event.entitiesKeepWrittenNumbers,
            })
            expect(outcome(shared, sharedMessages)).toEqual(outcome(alone, aloneMessages))
          }
        },
      ),
      { numRuns: fuzzRuns(300, 3000) },
    )
  })
})
