import type ajvDraft04 from 'ajv-draft-04'
import type { DataValidationCxt } from 'ajv/dist/types/index.js'
import { compareExactly, isExactMultiple } from './exact-decimal.js'
import { writtenNumberAt } from './exact-numbers.js'
import type { KeywordError } from './set-keywords.js'

/**
 * `maximum`, `minimum` and `multipleOf` compared in decimal arithmetic, as Enrich's validator
 * does with BigDecimal. A value or a bound that a double cannot hold (parsed by
 * `parseJsonExactly`) is compared as written: `maximum: 9223372036854775807` refuses
 * 9223372036854775808, which are the same double. Multiples are exact too: 0.07 and 19.99 are
 * multiples of 0.01, where floating-point division says they are not. Errors read as Ajv's own,
 * with the bound as written in `writtenLimit` when its double is not exact.
 */

type BoundCheck = ((data: unknown, context?: DataValidationCxt) => boolean) & {
  errors?: KeywordError[]
}

/** The value being validated, as written when its double is not exact. */
const writtenValue = (data: number, context: DataValidationCxt | undefined): number | string =>
  (context === undefined
    ? undefined
    : writtenNumberAt(context.parentData, context.parentDataProperty)) ?? data

/** How a value compares with a bound of the same double: by their texts, when either was written. */
const equalDoublesOrder = (value: number | string, bound: number, writtenBound?: string) =>
  typeof value === 'number' && writtenBound === undefined
    ? 0
    : compareExactly(value, writtenBound ?? bound)

const LIMITS = {
  maximum: { exclusive: 'exclusiveMaximum', inclusive: '<=', strict: '<', sign: 1 },
  minimum: { exclusive: 'exclusiveMinimum', inclusive: '>=', strict: '>', sign: -1 },
} as const

function limitCheck(keyword: keyof typeof LIMITS) {
  return (schema: unknown, parentSchema: Record<string, unknown>): BoundCheck => {
    const limit = LIMITS[keyword]
    const exclusive = Boolean(parentSchema[limit.exclusive])
    const comparison = exclusive ? limit.strict : limit.inclusive
    const bound = typeof schema === 'number' ? schema : Number.NaN
    const writtenBound = writtenNumberAt(parentSchema, keyword)
    const check: BoundCheck = (data, context) => {
      check.errors = undefined
      if (typeof data !== 'number') return true
      // Beyond the bound: above a maximum (sign 1) or below a minimum (sign -1); NaN never passes.
      // Rounding to a double keeps order, so different doubles are ordered as their texts are;
      // equal doubles are told apart by the texts, when either was written.
      const order =
        Number.isNaN(data) || Number.isNaN(bound)
          ? null
          : data !== bound
            ? data < bound
              ? -1
              : data > bound
                ? 1
                : 0
            : equalDoublesOrder(writtenValue(data, context), bound, writtenBound)
      const within = order !== null && (order * limit.sign < 0 || (order === 0 && !exclusive))
      if (within) return true
      check.errors = [
        {
          keyword,
          message: `must be ${comparison} ${writtenBound ?? bound}`,
          params: {
            comparison,
            limit: bound,
            ...(writtenBound === undefined ? {} : { writtenLimit: writtenBound }),
          },
        },
      ]
      return false
    }
    return check
  }
}

function multipleOfCheck(schema: unknown, parentSchema: Record<string, unknown>): BoundCheck {
  const divisor = typeof schema === 'number' ? schema : Number.NaN
  const writtenDivisor = writtenNumberAt(parentSchema, 'multipleOf')
  const check: BoundCheck = (data, context) => {
    check.errors = undefined
    if (
      typeof data !== 'number' ||
      isExactMultiple(writtenValue(data, context), writtenDivisor ?? divisor)
    )
      return true
    check.errors = [
      {
        keyword: 'multipleOf',
        message: `must be multiple of ${writtenDivisor ?? divisor}`,
        params: { multipleOf: divisor },
      },
    ]
    return false
  }
  return check
}

/** Replaces Ajv's `maximum`, `minimum` and `multipleOf` with the exact ones, before any schema is compiled. */
export function addExactBounds(ajv: InstanceType<typeof ajvDraft04.default>): void {
  for (const keyword of ['maximum', 'minimum'] as const) {
    ajv.removeKeyword(keyword)
    ajv.addKeyword({
      keyword,
      type: 'number',
      schemaType: 'number',
      compile: limitCheck(keyword),
      errors: true,
    })
  }
  ajv.removeKeyword('multipleOf')
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    compile: multipleOfCheck,
    errors: true,
  })
}
