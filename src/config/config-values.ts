/** Small readers of configuration values, shared by the configuration modules. */

/** The environment, as the configuration reads it. */
export type Env = Readonly<Record<string, string | undefined>>

/** A flag's value, else the environment variable's; blank counts as unset. */
export type Pick = (flag: string | undefined, name: string) => string | undefined

const TTL_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }

/** A duration in seconds (whole seconds, or with s, m, h or d), within [min, max]; `fallback` after a problem. */
export function parseDuration(
  raw: string,
  rule: { name: string; min: number; max: number; fallback: number },
  problems: string[],
): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw)
  const seconds = match ? Number(match[1]) * (TTL_UNITS[match[2] ?? ''] ?? 1) : NaN
  if (!Number.isSafeInteger(seconds) || seconds < rule.min || seconds > rule.max) {
    const range =
      rule.max === Number.MAX_SAFE_INTEGER
        ? rule.min === 1
          ? 'a positive number of seconds'
          : `at least ${rule.min} seconds`
        : `between ${rule.min} and ${rule.max} seconds`
    problems.push(`${rule.name} must be ${range}, optionally with s, m, h or d (got "${raw}")`)
    return rule.fallback
  }
  return seconds
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
}
const MIN_EVENTS_BYTES = 2 ** 20
const MAX_EVENTS_BYTES = 2 ** 50

/** A size in bytes, optionally in KiB, MiB, GiB or TiB (`512MiB`, `2GiB`), from 1 MiB to 1 PiB. */
export function parseSize(raw: string, name: string, problems: string[]): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim())
  const bytes = match ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase()] ?? NaN) : NaN
  if (!Number.isSafeInteger(bytes) || bytes < MIN_EVENTS_BYTES || bytes > MAX_EVENTS_BYTES) {
    problems.push(
      `${name} must be between 1 MiB and 1 PiB: bytes, or a number with KiB, MiB, GiB or TiB (got "${raw}")`,
    )
    return 2 ** 30
  }
  return bytes
}

/** An environment variable holding a whole number within [min, max]; `fallback` when unset or after a problem. */
export function boundedInteger(
  pick: Pick,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = pick(undefined, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    problems.push(
      `${name} must be an integer between ${min} and ${max} (got "${raw.slice(0, 50)}")`,
    )
    return fallback
  }
  return value
}

/** An on/off setting (`on`, `off`, `true` or `false`, any case); a problem named otherwise. */
export function onOff(pick: Pick, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = pick(undefined, name)
  if (raw === undefined) return fallback
  const value = raw.toLowerCase()
  if (value === 'on' || value === 'true') return true
  if (value === 'off' || value === 'false') return false
  problems.push(`${name} must be on or off (got "${raw.slice(0, 100)}")`)
  return fallback
}
