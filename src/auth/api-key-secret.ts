import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** A new API key secret: 256 random bits, URL-safe, with a prefix that makes leaked keys easy to spot. */
export function generateApiKeySecret(): string {
  return `floe_${randomBytes(32).toString('base64url')}`
}

/**
 * Secrets are stored only as this hash. They carry 256 random bits, so a fast hash is enough:
 * there is nothing to brute-force, unlike a human password.
 */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

export function secretMatchesHash(secret: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashApiKeySecret(secret), 'hex')
  const expected = Buffer.from(expectedHash, 'hex')
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
