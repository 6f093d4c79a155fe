/** The token exchange's own settings, from the environment: its rate limit per client address and the signing secrets. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Pick } from './config-values.js'

/** Token requests a client address may make per minute unless FLOE_TOKEN_RATE_LIMIT says otherwise. */
export const DEFAULT_TOKEN_RATE_LIMIT = 120
const MAX_TOKEN_RATE_LIMIT = 1_000_000
/** HS256 wants a key as long as its hash, 256 bits. */
export const MIN_SECRET_BYTES = 32

/** FLOE_TOKEN_RATE_LIMIT: requests to the token exchange per minute per client address. */
export function parseTokenRateLimit(pick: Pick, problems: string[]): number {
  const raw = pick(undefined, 'FLOE_TOKEN_RATE_LIMIT')
  if (raw === undefined) return DEFAULT_TOKEN_RATE_LIMIT
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < 1 || value > MAX_TOKEN_RATE_LIMIT) {
    problems.push(
      `FLOE_TOKEN_RATE_LIMIT must be a number of requests per minute between 1 and ${MAX_TOKEN_RATE_LIMIT} (got "${raw.slice(0, 50)}")`,
    )
    return DEFAULT_TOKEN_RATE_LIMIT
  }
  return value
}

/**
 * The HS256 secrets, each as the base64url of its bytes (the configuration is frozen, which a byte
 * array cannot be): new tokens are signed with `current` (null: one generated and kept in the store);
 * tokens signed with `previous` are still accepted, during a rotation.
 */
export interface SigningSecrets {
  readonly current: string | null
  readonly previous: string | null
}

/** FLOE_JWT_SECRET or FLOE_JWT_SECRET_FILE, and FLOE_JWT_PREVIOUS_SECRET or FLOE_JWT_PREVIOUS_SECRET_FILE. */
export function parseSigningSecrets(pick: Pick, problems: string[]): SigningSecrets {
  return {
    current: secretOf(pick, 'FLOE_JWT_SECRET', problems),
    previous: secretOf(pick, 'FLOE_JWT_PREVIOUS_SECRET', problems),
  }
}

/** The secret in variable `name` (its UTF-8 bytes) or in the file `name`_FILE names (its bytes, without trailing newlines). */
function secretOf(pick: Pick, name: string, problems: string[]): string | null {
  const value = pick(undefined, name)
  const file = pick(undefined, `${name}_FILE`)
  if (value !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE are both set: give the secret one way`)
    return null
  }
  if (value !== undefined) {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES) {
      problems.push(`${name} must be at least ${MIN_SECRET_BYTES} bytes long`)
      return null
    }
    return Buffer.from(value).toString('base64url')
  }
  if (file === undefined) return null
  let bytes: Buffer
  try {
    bytes = readFileSync(path.resolve(file))
  } catch (error) {
    problems.push(
      `${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    )
    return null
  }
  // `echo secret > file` and editors end the file with a newline, which is not part of the secret.
  let end = bytes.length
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--
  if (end < MIN_SECRET_BYTES) {
    problems.push(
      `${name}_FILE: the secret in ${file} must be at least ${MIN_SECRET_BYTES} bytes long (it has ${end})`,
    )
    return null
  }
  return bytes.subarray(0, end).toString('base64url')
}
