/** The listeners' options: the port checks, and the HTTPS listener's certificate, key and port. */
import { boundedInteger, type Pick } from './config-values.js'
import path from 'node:path'

/** Where the HTTPS listener's certificate and key are, and its port. */
export interface TlsConfig {
  readonly port: number
  readonly files:
    | { readonly kind: 'pem'; readonly certFile: string; readonly keyFile: string }
    | { readonly kind: 'pkcs12'; readonly file: string; readonly passphrase: string | null }
}

/** The HTTPS listener's flags; each wins over its environment variable. */
export interface ListenerFlags {
  readonly tlsCert?: string | undefined
  readonly tlsKey?: string | undefined
  readonly tlsPfx?: string | undefined
  readonly tlsPort?: string | undefined
}

/** `--tls-cert` with `--tls-key`, or `--tls-pfx` (its password in FLOE_TLS_PASSPHRASE or Micro's MICRO_SSL_CERT_PASSWORD), and `--tls-port`. */
export function parseTls(flags: ListenerFlags, pick: Pick, problems: string[]): TlsConfig | null {
  const certFile = pick(flags.tlsCert, 'FLOE_TLS_CERT')
  const keyFile = pick(flags.tlsKey, 'FLOE_TLS_KEY')
  const pfx = pick(flags.tlsPfx, 'FLOE_TLS_PFX')
  const portRaw = pick(flags.tlsPort, 'FLOE_TLS_PORT')
  // Micro reads its PKCS#12 password from MICRO_SSL_CERT_PASSWORD.
  const passphrase =
    pick(undefined, 'FLOE_TLS_PASSPHRASE') ?? pick(undefined, 'MICRO_SSL_CERT_PASSWORD') ?? null
  if (certFile === undefined && keyFile === undefined && pfx === undefined) {
    if (portRaw !== undefined)
      problems.push(
        'the HTTPS port (--tls-port, FLOE_TLS_PORT) needs a certificate: --tls-cert with --tls-key, or --tls-pfx',
      )
    return null
  }
  const port = parsePort(portRaw ?? '9543', problems, 'the HTTPS port (--tls-port, FLOE_TLS_PORT)')
  if (pfx !== undefined) {
    if (certFile !== undefined || keyFile !== undefined)
      problems.push(
        'give the HTTPS certificate either as --tls-pfx or as --tls-cert with --tls-key, not both',
      )
    return { port, files: { kind: 'pkcs12', file: path.resolve(pfx), passphrase } }
  }
  if (certFile === undefined || keyFile === undefined) {
    problems.push('--tls-cert (FLOE_TLS_CERT) and --tls-key (FLOE_TLS_KEY) go together')
    return null
  }
  return {
    port,
    files: { kind: 'pem', certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) },
  }
}

/** A port number, 0 to 65535 (0: a free one); a problem naming the setting otherwise. */
export function parsePort(raw: string, problems: string[], name = 'port'): number {
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port > 65535) {
    problems.push(`${name} must be an integer between 0 and 65535 (got "${raw}")`)
    return 0
  }
  return port
}

/** Timeouts and connection caps of the listeners (both HTTP and HTTPS). */
export interface ConnectionConfig {
  /**
   * How long a client may take to send a whole request (headers and body), in milliseconds; past
   * it the answer is 408 and the connection closes (the reference collector's 30 s), so that
   * requests left unfinished cannot hold their partial bodies forever.
   */
  readonly requestTimeoutMs: number
  /** How long a new connection may take to send its first byte and then its whole headers, in milliseconds. */
  readonly headersTimeoutMs: number
  /** How long a kept-alive connection may wait for its next request, in milliseconds. */
  readonly keepAliveTimeoutMs: number
  /** Connections open at once, at most (the reference collector's 1024); later ones are closed at once. */
  readonly maxConnections: number
  /** Connections open at once from one client address; later ones from it are closed at once. */
  readonly maxConnectionsPerAddress: number
}

/** FLOE_REQUEST_TIMEOUT_MS, FLOE_HEADERS_TIMEOUT_MS, FLOE_KEEP_ALIVE_TIMEOUT_MS, FLOE_MAX_CONNECTIONS, FLOE_MAX_CONNECTIONS_PER_ADDRESS. */
export function parseConnections(
  pick: (flag: string | undefined, name: string) => string | undefined,
  problems: string[],
): ConnectionConfig {
  const requestTimeoutMs = boundedInteger(
    pick,
    'FLOE_REQUEST_TIMEOUT_MS',
    30_000,
    1_000,
    3_600_000,
    problems,
  )
  const headersTimeoutMs = boundedInteger(
    pick,
    'FLOE_HEADERS_TIMEOUT_MS',
    10_000,
    500,
    3_600_000,
    problems,
  )
  // Node refuses a headers timeout longer than the request's: the default yields to a shorter
  // request timeout; only one set longer is a problem.
  const headersSet = pick(undefined, 'FLOE_HEADERS_TIMEOUT_MS') !== undefined
  if (headersSet && headersTimeoutMs > requestTimeoutMs)
    problems.push(
      `FLOE_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than FLOE_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    )
  return {
    requestTimeoutMs,
    headersTimeoutMs: Math.min(headersTimeoutMs, requestTimeoutMs),
    keepAliveTimeoutMs: boundedInteger(
      pick,
      'FLOE_KEEP_ALIVE_TIMEOUT_MS',
      5_000,
      100,
      600_000,
      problems,
    ),
    maxConnections: boundedInteger(pick, 'FLOE_MAX_CONNECTIONS', 1024, 1, 1_000_000, problems),
    maxConnectionsPerAddress: boundedInteger(
      pick,
      'FLOE_MAX_CONNECTIONS_PER_ADDRESS',
      256,
      1,
      1_000_000,
      problems,
    ),
  }
}
