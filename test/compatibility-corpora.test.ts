import { describe, expect, it } from 'vitest'
import { checkCompatibility, ENGINE_AJV_OPTIONS } from '../src/compatibility/check-compatibility.js'
import { compileSchema, createAjv } from '../src/iglu/ajv-factory.js'
import { bumpKind, parseSchemaVer } from '../src/iglu/schema-ver.js'
import { loadIgluCentral, loadTestSuite } from './support/shared-data.js'

/** The validator the engine proves about; witnesses are checked with another. */
const engineAjv = createAjv(ENGINE_AJV_OPTIONS)

const igluCentral = loadIgluCentral()
const suite = loadTestSuite()
const tally = (outcomes: string[]) =>
  outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {})

describe('compatibility engine on real corpora', () => {
  it('(a) proves every Iglu Central schema compatible with itself without the identity shortcut', () => {
    const outcomes = igluCentral.map(({ schema }) =>
      checkCompatibility(schema, structuredClone(schema), {
        ajv: engineAjv,
        identityShortcut: false,
        budget: { maxMillis: 60_000 },
      }),
    )
    const counts = tally(outcomes.map((o) => o.outcome))
    console.log(`reflexivity, Iglu Central (${igluCentral.length}):`, counts)
    expect(outcomes.filter((o) => o.outcome === 'incompatible')).toEqual([])
    // Only a schema with a remote $ref (the self-describing meta-schema itself) may stay undecidable, and says why.
    const undecided = outcomes.filter((o) => o.outcome !== 'compatible')
    expect(undecided.every((o) => o.reasons.some((r) => r.code === 'remote-ref'))).toBe(true)
    const withRemoteRefs = igluCentral.filter(({ schema }) =>
      /"\$ref":"(?!#)/.test(JSON.stringify(schema)),
    ).length
    expect(counts.compatible).toBe(igluCentral.length - withRemoteRefs)
    // With the shortcut (the default), identical schemas are compatible at once.
    expect(
      igluCentral.every(
        ({ schema }) =>
          checkCompatibility(schema, schema, { ajv: engineAjv }).outcome === 'compatible',
      ),
    ).toBe(true)
  })

  it('(a) never finds a test-suite schema incompatible with itself', () => {
    const outcomes = suite.map((group) =>
      checkCompatibility(group.schema, structuredClone(group.schema), {
        ajv: engineAjv,
        identityShortcut: false,
        budget: { maxMillis: 60_000 },
      }),
    )
    console.log(
      `reflexivity, test suite (${suite.length} schemas):`,
      tally(outcomes.map((o) => o.outcome)),
    )
    expect(
      outcomes
        .map((o, i) => (o.outcome === 'incompatible' ? suite[i]!.description : null))
        .filter(Boolean),
    ).toEqual([])
    expect(
      suite.every(
        (group) =>
          checkCompatibility(group.schema, group.schema, { ajv: engineAjv }).outcome ===
          'compatible',
      ),
    ).toBe(true)
  })

  it('(b) never answers compatible when a test-suite instance separates two schemas of one file', () => {
    const ajv = createAjv()
    const byFile = new Map<string, typeof suite>()
    for (const group of suite) byFile.set(group.file, [...(byFile.get(group.file) ?? []), group])
    let separated = 0
    let refuted = 0
    const wrong: string[] = []
    for (const groups of byFile.values()) {
      const compiled = groups.map((g) => {
        try {
          return compileSchema(ajv, structuredClone(g.schema) as object)
        } catch {
          return null
        }
      })
      const instances = groups.flatMap((g) => g.tests.map((t) => t.data))
      for (let a = 0; a < groups.length; a++) {
        for (let b = 0; b < groups.length; b++) {
          const validA = compiled[a]
          const validB = compiled[b]
          if (a === b || !validA || !validB) continue
          if (!instances.some((x) => validA(x) === true && validB(x) !== true)) continue
          separated++
          const result = checkCompatibility(groups[a]!.schema, groups[b]!.schema, {
            ajv: engineAjv,
          })
          if (result.outcome === 'compatible')
            wrong.push(
              `${groups[a]!.file}: "${groups[a]!.description}" ⊆ "${groups[b]!.description}"`,
            )
          if (result.outcome === 'incompatible') refuted++
        }
      }
    }
    console.log(
      `oracle: ${separated} separated pairs, ${refuted} shown incompatible by a witness, ${wrong.length} wrongly compatible`,
    )
    expect(separated).toBeGreaterThan(100)
    expect(wrong).toEqual([])
  })

  it('(e) tabulates Iglu Central consecutive versions by bump kind, with no budget exceeded', () => {
    const table: Record<string, Record<string, number>> = {}
    const budgetHit: string[] = []
    const undecided: string[] = []
    let pairs = 0
    for (let i = 1; i < igluCentral.length; i++) {
      const previous = igluCentral[i - 1]!
      const next = igluCentral[i]!
      if (previous.vendor !== next.vendor || previous.name !== next.name) continue
      pairs++
      const kind = bumpKind(parseSchemaVer(previous.version)!, parseSchemaVer(next.version)!)
      const result = checkCompatibility(previous.schema, next.schema, {
        ajv: engineAjv,
        budget: { maxMillis: 60_000 },
      })
      if (result.reasons.some((r) => r.code === 'budget'))
        budgetHit.push(`${next.vendor}/${next.name} ${previous.version}→${next.version}`)
      table[kind] = { ...table[kind], [result.outcome]: (table[kind]?.[result.outcome] ?? 0) + 1 }
      if (result.outcome === 'undecidable')
        undecided.push(`${next.vendor}/${next.name} ${previous.version}→${next.version}`)
    }
    console.log(`Iglu Central consecutive pairs (${pairs}), old ⊆ new, by bump kind:`)
    console.table(table)
    expect(pairs).toBeGreaterThan(100)
    expect(budgetHit).toEqual([])
    // Every pair is decided with a generous budget (the last one, resolver-config's oneOf, since its branches are shown disjoint).
    expect(undecided).toEqual([])
  })
})
