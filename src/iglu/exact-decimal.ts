/**
 * Exact arithmetic on the decimal values JSON numbers denote: a number is read from its shortest
 * decimal form (what JSON.parse saw) as digits × 10^exponent, with BigInt digits.
 */
interface Decimal {
  readonly digits: bigint
  readonly exponent: number
}

function toDecimal(value: number): Decimal | null {
  if (!Number.isFinite(value)) return null
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value))
  if (match === null) return null
  const fraction = match[3] ?? ''
  const digits = BigInt(`${match[1]}${match[2]}${fraction}`)
  return { digits, exponent: Number(match[4] ?? '0') - fraction.length }
}

/** Whether `value` is an exact integer multiple of `divisor` (divisor > 0), in decimal arithmetic. */
export function isExactMultiple(value: number, divisor: number): boolean {
  const v = toDecimal(value)
  const d = toDecimal(divisor)
  if (v === null || d === null || d.digits === 0n) return false
  const exponent = Math.min(v.exponent, d.exponent)
  if (Math.max(v.exponent, d.exponent) - exponent > 400) return false
  const scaledV = v.digits * 10n ** BigInt(v.exponent - exponent)
  const scaledD = d.digits * 10n ** BigInt(d.exponent - exponent)
  return scaledV % scaledD === 0n
}
