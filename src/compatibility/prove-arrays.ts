import { asSchema, isAnything, isNothing, type Schema } from './prepared-schema.js'
import type { ProofContext } from './proof-context.js'

/** The schema for item `index` (index ≥ tuple length means "every later item"). */
function itemAt(s: Schema, index: number): Schema {
  if (Array.isArray(s.items))
    return index < s.items.length ? asSchema(s.items[index]) : asSchema(s.additionalItems)
  return asSchema(s.items)
}

/** The most items a candidate array can have, if bounded. */
function maxItemsOf(s: Schema): number | undefined {
  const declared = typeof s.maxItems === 'number' ? s.maxItems : undefined
  if (Array.isArray(s.items) && s.additionalItems === false)
    return Math.min(declared ?? Infinity, s.items.length)
  return declared
}

/** Arrays: item counts, uniqueness, and items (single schema or tuple with additionalItems). */
export function proveArrays(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  const lMin = typeof L.minItems === 'number' ? L.minItems : 0
  const lMax = maxItemsOf(L)
  if (lMax !== undefined && lMin > lMax) return true
  if (typeof R.minItems === 'number' && R.minItems > lMin)
    return ctx.fail('not-proved', `${pointer}/minItems`, 'the candidate allows shorter arrays')
  if (typeof R.maxItems === 'number' && (lMax === undefined || lMax > R.maxItems)) {
    return ctx.fail('not-proved', `${pointer}/maxItems`, 'the candidate allows longer arrays')
  }
  if (R.uniqueItems === true && L.uniqueItems !== true && (lMax === undefined || lMax > 1)) {
    return ctx.fail('not-proved', `${pointer}/uniqueItems`, 'the candidate allows repeated items')
  }
  if (R.items === undefined) return true
  const lTuple = Array.isArray(L.items) ? L.items.length : 0
  const rTuple = Array.isArray(R.items) ? R.items.length : 0
  // Check each position where either side has its own schema, then the tail that both treat alike.
  const positions = Math.max(lTuple, rTuple)
  for (let i = 0; i < positions; i++) {
    if (lMax !== undefined && i >= lMax) return true
    const l = itemAt(L, i)
    if (isNothing(l)) return true
    const r = itemAt(R, i)
    if (
      !isAnything(r) &&
      !ctx.prove(l, r, `${pointer}/items${Array.isArray(R.items) && i < rTuple ? `/${i}` : ''}`)
    )
      return false
  }
  if (lMax !== undefined && positions >= lMax) return true
  const lTail = itemAt(L, positions)
  const rTail = itemAt(R, positions)
  if (isNothing(lTail) || isAnything(rTail)) return true
  return ctx.prove(
    lTail,
    rTail,
    `${pointer}/${Array.isArray(R.items) ? 'additionalItems' : 'items'}`,
  )
}
