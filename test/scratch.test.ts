import { it } from 'vitest'
import { checkCompatibility } from '../src/compatibility/check-compatibility.js'
import { loadIgluCentral } from './support/shared-data.js'
it('scratch', () => {
  console.log('R', JSON.stringify(checkCompatibility({ type: 'integer', minimum: 1, maximum: 3 }, { enum: [1, 2, 3] }, { budget: { maxMillis: 10000 } })))
  for (const s of loadIgluCentral()) {
    const r = checkCompatibility(s.schema, structuredClone(s.schema), { identityShortcut: false, budget: { maxMillis: 60000 } })
    if (r.outcome !== 'compatible') console.log('IC', s.vendor, s.name, s.version, JSON.stringify(r).slice(0, 300))
  }
})
