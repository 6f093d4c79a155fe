import { isExactMultiple } from '../iglu/index.js'
import type { Kind } from './json-kinds.js'
import type { Schema } from './prepared-schema.js'
import type { ProofContext } from './proof-context.js'

interface Bound {
  readonly value: number
  readonly exclusive: boolean
}

const lowerOf = (s: Schema): Bound | undefined =>
  typeof s.minimum === 'number'
    ? { value: s.minimum, exclusive: s.exclusiveMinimum === true }
    : undefined
const upperOf = (s: Schema): Bound | undefined =>
  typeof s.maximum === 'number'
    ? { value: s.maximum, exclusive: s.exclusiveMaximum === true }
    : undefined

/** Largest magnitude for which Ajv's `x / multipleOf` test on integers is exact (below 2^53, and far from 1e21). */
const SAFE_MAGNITUDE = 2 ** 53

/** Numbers of one kind (integers, or numbers that are not integers): bounds and multipleOf. */
export function proveNumbers(
  L: Schema,
  R: Schema,
  kind: Extract<Kind, 'integer' | 'number'>,
  ctx: ProofContext,
  pointer: string,
): boolean {
  const lMultiple = typeof L.multipleOf === 'number' ? L.multipleOf : undefined
  // Multiples of an integer are integers: the non-integer part of such a candidate is empty.
  if (kind === 'number' && lMultiple !== undefined && Number.isInteger(lMultiple)) return true
  let lo = lowerOf(L)
  let hi = upperOf(L)
  if (kind === 'integer') {
    // Integer kind: tighten the bounds to the integers they admit.
    if (lo !== undefined)
      lo = {
        value: lo.exclusive ? Math.floor(lo.value) + 1 : Math.ceil(lo.value),
        exclusive: false,
      }
    if (hi !== undefined)
      hi = {
        value: hi.exclusive ? Math.ceil(hi.value) - 1 : Math.floor(hi.value),
        exclusive: false,
      }
    if (lo !== undefined && hi !== undefined && lo.value > hi.value) return true
  }
  const rLo = lowerOf(R)
  const rHi = upperOf(R)
  if (rLo !== undefined) {
    const ok =
      lo !== undefined &&
      (lo.value > rLo.value || (lo.value === rLo.value && (lo.exclusive || !rLo.exclusive)))
    if (!ok) {
      ctx.hint(rLo.value)
      ctx.hint(kind === 'integer' ? Math.ceil(rLo.value) - 1 : rLo.value - 0.5)
      return ctx.fail(
        'not-proved',
        `${pointer}/minimum`,
        `the candidate allows ${kind}s below the reference's minimum`,
      )
    }
  }
  if (rHi !== undefined) {
    const ok =
      hi !== undefined &&
      (hi.value < rHi.value || (hi.value === rHi.value && (hi.exclusive || !rHi.exclusive)))
    if (!ok) {
      ctx.hint(rHi.value)
      ctx.hint(kind === 'integer' ? Math.floor(rHi.value) + 1 : rHi.value + 0.5)
      return ctx.fail(
        'not-proved',
        `${pointer}/maximum`,
        `the candidate allows ${kind}s above the reference's maximum`,
      )
    }
  }
  const rMultiple = typeof R.multipleOf === 'number' ? R.multipleOf : undefined
  if (rMultiple === undefined || lMultiple === rMultiple) return true
  const effective = lMultiple ?? (kind === 'integer' ? 1 : undefined)
  const bounded =
    lo !== undefined &&
    hi !== undefined &&
    Math.max(Math.abs(lo.value), Math.abs(hi.value)) <= SAFE_MAGNITUDE
  if (
    effective !== undefined &&
    Number.isInteger(effective) &&
    Number.isInteger(rMultiple) &&
    isExactMultiple(effective, rMultiple) &&
    bounded
  ) {
    return true
  }
  if (effective !== undefined) {
    ctx.hint(effective)
    ctx.hint(effective * Math.ceil(1e21 / effective))
  }
  ctx.hint(rMultiple / 2)
  const exact = effective !== undefined && isExactMultiple(effective, rMultiple)
  return ctx.fail(
    'not-proved',
    `${pointer}/multipleOf`,
    exact
      ? `multipleOf ${effective} divides into ${rMultiple} exactly, but not provably under Ajv's floating-point test`
      : `the candidate allows ${kind}s that are not multiples of ${rMultiple}`,
  )
}
