// Compatibility engine over every consecutive pair of Iglu Central (old ⊆ new): median and p99
// time per pair and the share decided. Baseline, measured in the same run: compiling and running
// both schemas once per pair with a validator built as the engine's (the least any check must do).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  checkCompatibility,
  ENGINE_AJV_OPTIONS,
} from '../dist/compatibility/check-compatibility.js'
import { compileSchema, createAjv } from '../dist/iglu/ajv-factory.js'
import { compareSchemaVer, parseSchemaVer } from '../dist/iglu/schema-ver.js'
import { quantile } from './support/load.mjs'

/** The validator the engine proves about, as a server's worker threads build it and keep it. */
const engineAjv = createAjv(ENGINE_AJV_OPTIONS)

const root = new URL('../../shared/data/iglu-central/schemas', import.meta.url).pathname
const limitArg = process.argv.indexOf('--limit')
const limit = limitArg > 0 ? Number(process.argv[limitArg + 1]) : Infinity

const schemas = []
for (const vendor of readdirSync(root)) {
  for (const name of readdirSync(join(root, vendor))) {
    let versions = []
    try {
      versions = readdirSync(join(root, vendor, name, 'jsonschema'))
    } catch {
      continue
    }
    for (const version of versions)
      schemas.push({
        vendor,
        name,
        version,
        schema: JSON.parse(readFileSync(join(root, vendor, name, 'jsonschema', version), 'utf8')),
      })
  }
}
schemas.sort(
  (a, b) =>
    a.vendor.localeCompare(b.vendor) ||
    a.name.localeCompare(b.name) ||
    compareSchemaVer(parseSchemaVer(a.version), parseSchemaVer(b.version)),
)
const pairs = []
for (let i = 1; i < schemas.length && pairs.length < limit; i++) {
  if (schemas[i - 1].vendor === schemas[i].vendor && schemas[i - 1].name === schemas[i].name)
    pairs.push([schemas[i - 1].schema, schemas[i].schema])
}

const ajv = createAjv(ENGINE_AJV_OPTIONS)
const strip = ({ self, $schema, ...body }) => body
const baseline = []
const engine = []
let decided = 0
for (const [old, next] of pairs) {
  let t = performance.now()
  const a = compileSchema(ajv, strip(structuredClone(old)))
  const b = compileSchema(ajv, strip(structuredClone(next)))
  a({})
  b({})
  baseline.push(performance.now() - t)
  t = performance.now()
  const result = checkCompatibility(old, next, { ajv: engineAjv })
  engine.push(performance.now() - t)
  if (result.outcome !== 'undecidable') decided++
}
baseline.sort((x, y) => x - y)
engine.sort((x, y) => x - y)
const report = {
  scenario: 'compatibility',
  pairs: pairs.length,
  decidedShare: pairs.length === 0 ? 0 : decided / pairs.length,
  medianMs: quantile(engine, 0.5),
  p99Ms: quantile(engine, 0.99),
  baselineMedianMs: quantile(baseline, 0.5),
  ratioToBaseline: quantile(engine, 0.5) / quantile(baseline, 0.5),
}
console.log(JSON.stringify(report))
