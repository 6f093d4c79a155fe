/**
 * Exact arithmetic on the decimal values JSON numbers denote, as Enrich's validator does with
 * BigDecimal: a number is read from its text (as written, or the shortest form of a double, which
 * is what JSON.parse saw) as digits × 10^exponent, with BigInt digits.
 */
interface Decimal {
  readonly digits: bigint
  readonly exponent: number
}

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/** The decimal a JSON number's text denotes, or null for what is not one (or a NaN or infinity). */
function decimalOf(value: number | string): Decimal | null {
  if (typeof value === 'number' && !Number.isFinite(value)) return null
  const match = DECIMAL_TEXT.exec(String(value))
  if (match === null) return null
  const fraction = match[3] ?? ''
  const digits = BigInt(`${match[1]}${match[2]}${fraction}`)
  return { digits, exponent: Number(match[4] ?? '0') - fraction.length }
}

/** Whether `value` is an exact integer multiple of `divisor` (divisor > 0), in decimal arithmetic. */
export function isExactMultiple(value: number | string, divisor: number | string): boolean {
  const v = decimalOf(value)
  const d = decimalOf(divisor)
  if (v === null || d === null || d.digits === 0n) return false
  const exponent = Math.min(v.exponent, d.exponent)
  if (Math.max(v.exponent, d.exponent) - exponent > 400) return false
  const scaledV = v.digits * 10n ** BigInt(v.exponent - exponent)
  const scaledD = d.digits * 10n ** BigInt(d.exponent - exponent)
  return scaledV % scaledD === 0n
}

const sign = (d: Decimal) => (d.digits > 0n ? 1 : d.digits < 0n ? -1 : 0)
const digitCount = (d: Decimal) => (d.digits < 0n ? -d.digits : d.digits).toString().length

/**
 * -1, 0 or 1 as `a` is below, equal to or above `b`, exactly; null when either is not a finite
 * decimal. No power of ten larger than the two texts is ever built: numbers of different orders of
 * magnitude are told apart by their order alone.
 */
export function compareExactly(a: number | string, b: number | string): -1 | 0 | 1 | null {
  const x = decimalOf(a)
  const y = decimalOf(b)
  if (x === null || y === null) return null
  const sx = sign(x)
  const sy = sign(y)
  if (sx !== sy || sx === 0) return sx < sy ? -1 : sx > sy ? 1 : 0
  const orderX = digitCount(x) + x.exponent
  const orderY = digitCount(y) + y.exponent
  if (orderX !== orderY) return (orderX < orderY ? -sx : sx) as -1 | 1
  // Same order of magnitude: the exponents differ by at most the longer text's digit count.
  const exponent = Math.min(x.exponent, y.exponent)
  const scaledX = x.digits * 10n ** BigInt(x.exponent - exponent)
  const scaledY = y.digits * 10n ** BigInt(y.exponent - exponent)
  return scaledX < scaledY ? -1 : scaledX > scaledY ? 1 : 0
}

/** Whether a number's text denotes exactly the value of the double it parses to. */
export function parsesExactly(text: string): boolean {
  return compareExactly(text, Number(text)) === 0
}
