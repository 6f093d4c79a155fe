import type { FastifyRequest } from 'fastify'

/** What a credential's value becomes in the logs. */
export const REDACTED = '[REDACTED]'

/** Names (lower-cased, without `-`, `_`, `.` and brackets) of query parameters that carry credentials. */
const CREDENTIAL_NAMES = new Set([
  'token',
  'accesstoken',
  'apikey',
  'key',
  'secret',
  'password',
  'passwd',
  'jwt',
  'authorization',
  'auth',
  'bearer',
])
/** Endings that make a name a credential too: `refresh_token`, `client_secret`, `X-API-Key`, `db_password`. */
const CREDENTIAL_ENDINGS = ['token', 'secret', 'password', 'apikey']

function isCredentialName(rawName: string): boolean {
  let name = rawName.replaceAll('+', ' ')
  try {
    name = decodeURIComponent(name)
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  const plain = name.toLowerCase().replace(/[-_.[\]\s]/g, '')
  return CREDENTIAL_NAMES.has(plain) || CREDENTIAL_ENDINGS.some((ending) => plain.endsWith(ending))
}

/**
 * The URL with the values of its credential-like query parameters (`?access_token=...`, as an
 * EventSource must send one, `apikey`, `secret`...) and an upload link's token replaced by
 * [REDACTED]; every other byte kept.
 */
export function redactCredentials(url: string): string {
  return redactQuery(url.replace(UPLOAD_LINK_TOKEN, `$1${REDACTED}`))
}

/**
 * The one-time token of a trigger image's upload link (`…/images/v1/{id}/upload/{token}`), the
 * link's only credential: snowplow-cli sends the image there without any other.
 */
const UPLOAD_LINK_TOKEN = /(\/images\/v1\/[^/?#]+\/upload\/)[^/?#]+/

function redactQuery(url: string): string {
  const start = url.indexOf('?')
  if (start === -1) return url
  let changed = false
  const parameters = url
    .slice(start + 1)
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=')
      if (equals === -1 || !isCredentialName(parameter.slice(0, equals))) return parameter
      changed = true
      return `${parameter.slice(0, equals)}=${REDACTED}`
    })
  return changed ? `${url.slice(0, start + 1)}${parameters.join('&')}` : url
}

/** Fastify's request serializer for the logs (the same fields), with credentials in the URL redacted. */
export function requestLogSerializer(request: FastifyRequest) {
  const version = request.headers['accept-version']
  return {
    method: request.method,
    url: redactCredentials(request.url),
    version: Array.isArray(version) ? version[0] : version,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}
