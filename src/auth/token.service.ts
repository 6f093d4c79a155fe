import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { InvalidTokenError } from './auth.errors.js'
import type { ApiKey } from './api-keys.store.js'
import type { Clock } from './clock.js'

const ISSUER = 'floe'
const ADMIN_ROLE = 'admin'
/** Tokens whose signature and claims were checked, kept so that a client's next requests skip the check. */
const MAX_VERIFIED = 10_000

/** What a verified access token says about its bearer. */
export interface TokenClaims {
  readonly apiKeyId: string
  readonly organizationId: string
  readonly isAdmin: boolean
  readonly expiresAt: Date
}

/**
 * Issues and verifies the HS256 access tokens handed out by the token exchange. Tokens are signed
 * with `secret`; those signed with one of `previousSecrets` (a rotation under way) are accepted too.
 */
export function createTokenService(deps: {
  secret: Uint8Array
  previousSecrets?: readonly Uint8Array[]
  ttlSeconds: number
  clock: Clock
}) {
  const { secret, ttlSeconds, clock } = deps
  const verifyingKeys = [secret, ...(deps.previousSecrets ?? [])]
  if (verifyingKeys.some((key) => key.byteLength < 32))
    throw new Error('the token signing secrets must be at least 32 bytes')
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1)
    throw new Error('the token lifetime must be a positive integer')

  // A token is immutable and the secrets do not change while the service runs: once its signature
  // and claims are checked, only its expiry can change the answer, and it is checked on every use.
  const verified = new Map<string, TokenClaims>()

  /** The token's payload, checked with the first key whose signature matches (jose checks the claims only after the signature). */
  async function verifiedPayload(token: string) {
    for (const [index, key] of verifyingKeys.entries()) {
      try {
        return (
          await jwtVerify(token, key, {
            algorithms: ['HS256'],
            issuer: ISSUER,
            requiredClaims: ['sub', 'iat', 'exp'],
            currentDate: clock.now(),
          })
        ).payload
      } catch (error) {
        if (
          !(error instanceof joseErrors.JWSSignatureVerificationFailed) ||
          index === verifyingKeys.length - 1
        )
          throw error
      }
    }
    throw new InvalidTokenError('No key to verify the access token with')
  }

  async function verifyOnce(token: string): Promise<TokenClaims> {
    try {
      const payload = await verifiedPayload(token)
      const { sub, org, roles, exp } = payload
      if (
        typeof sub !== 'string' ||
        typeof org !== 'string' ||
        !Array.isArray(roles) ||
        typeof exp !== 'number'
      ) {
        throw new InvalidTokenError('The access token lacks the expected claims')
      }
      return {
        apiKeyId: sub,
        organizationId: org,
        isAdmin: roles.includes(ADMIN_ROLE),
        expiresAt: new Date(exp * 1000),
      }
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error
      if (error instanceof joseErrors.JWTExpired)
        throw new InvalidTokenError('The access token has expired', undefined, { cause: error })
      throw new InvalidTokenError('The access token is malformed or badly signed', undefined, {
        cause: error,
      })
    }
  }

  return {
    async issue(key: ApiKey): Promise<string> {
      const issuedAt = Math.floor(clock.now().getTime() / 1000)
      return new SignJWT({ org: key.organizationId, roles: key.isAdmin ? [ADMIN_ROLE] : [] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setSubject(key.id)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ttlSeconds)
        .sign(secret)
    },

    async verify(token: string): Promise<TokenClaims> {
      const known = verified.get(token)
      if (known !== undefined) {
        // As jose decides it: expired once the current second reaches `exp`.
        if (Math.floor(clock.now().getTime() / 1000) < known.expiresAt.getTime() / 1000)
          return known
        verified.delete(token)
        throw new InvalidTokenError('The access token has expired')
      }
      const claims = await verifyOnce(token)
      verified.set(token, claims)
      if (verified.size > MAX_VERIFIED) verified.delete(verified.keys().next().value as string)
      return claims
    },
  }
}

export type TokenService = ReturnType<typeof createTokenService>
