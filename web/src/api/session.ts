/**
 * The signed-in session: the access token from the token exchange, held in session storage (it
 * goes when the tab closes), and what the console reads from its claims. The organization and the
 * admin role come from the token itself, never from what the person typed.
 */
export interface Session {
  readonly token: string
  readonly organizationId: string
  readonly isAdmin: boolean
  /** The API key the token was issued for (the token's subject). */
  readonly apiKeyId: string
  /** When the token expires, in milliseconds since the epoch. */
  readonly expiresAt: number
}

const TOKEN_KEY = 'floe.accessToken'
const LAST_ORGANIZATION_KEY = 'floe.lastOrganizationId'

function base64UrlJson(part: string): unknown {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/')
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
  return JSON.parse(new TextDecoder().decode(bytes))
}

/** The session a token stands for, or null when it is not a token Floe issues (or it has expired). */
export function sessionOf(token: string, now = Date.now()): Session | null {
  const payload = token.split('.')[1]
  if (payload === undefined) return null
  try {
    const claims = base64UrlJson(payload) as {
      org?: unknown
      roles?: unknown
      sub?: unknown
      exp?: unknown
    }
    if (typeof claims.org !== 'string' || typeof claims.exp !== 'number') return null
    const expiresAt = claims.exp * 1000
    if (expiresAt <= now) return null
    return {
      token,
      organizationId: claims.org,
      isAdmin: Array.isArray(claims.roles) && claims.roles.includes('admin'),
      apiKeyId: typeof claims.sub === 'string' ? claims.sub : '',
      expiresAt,
    }
  } catch {
    return null
  }
}

export function storedSession(): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY)
  const session = token === null ? null : sessionOf(token)
  if (token !== null && session === null) sessionStorage.removeItem(TOKEN_KEY)
  return session
}

export function keepSession(session: Session): void {
  sessionStorage.setItem(TOKEN_KEY, session.token)
  localStorage.setItem(LAST_ORGANIZATION_KEY, session.organizationId)
}

export function forgetSession(): void {
  sessionStorage.removeItem(TOKEN_KEY)
}

/** The organization of the last sign-in on this browser (not a secret), to fill the form. */
export const lastOrganizationId = (): string => localStorage.getItem(LAST_ORGANIZATION_KEY) ?? ''
