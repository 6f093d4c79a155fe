import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { InvalidTokenError } from './auth.errors.js'
import type { ApiKey } from './api-keys.store.js'
import type { Clock } from './clock.js'

const ISSUER = 'floe'
const ADMIN_ROLE = 'admin'

/** What a verified access token says about its bearer. */
export interface TokenClaims {
  readonly apiKeyId: string
  readonly organizationId: string
  readonly isAdmin: boolean
  readonly expiresAt: Date
}

/** Issues and verifies the HS256 access tokens handed out by the token exchange. */
export function createTokenService(deps: { secret: Uint8Array; ttlSeconds: number; clock: Clock }) {
  const { secret, ttlSeconds, clock } = deps
  if (secret.byteLength < 32) throw new Error('the token signing secret must be at least 32 bytes')
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) throw new Error('the token lifetime must be a positive integer')

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
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          requiredClaims: ['sub', 'iat', 'exp'],
          currentDate: clock.now(),
        })
        const { sub, org, roles, exp } = payload
        if (typeof sub !== 'string' || typeof org !== 'string' || !Array.isArray(roles) || typeof exp !== 'number') {
          throw new InvalidTokenError('The access token lacks the expected claims')
        }
        return { apiKeyId: sub, organizationId: org, isAdmin: roles.includes(ADMIN_ROLE), expiresAt: new Date(exp * 1000) }
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error
        if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('The access token has expired', undefined, { cause: error })
        throw new InvalidTokenError('The access token is malformed or badly signed', undefined, { cause: error })
      }
    },
  }
}

export type TokenService = ReturnType<typeof createTokenService>
