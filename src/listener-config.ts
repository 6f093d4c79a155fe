/** The listeners' options: the port checks, and the HTTPS listener's certificate, key and port. */
import path from 'node:path'
import type { ConfigFlags } from './config.js'

/** Where the HTTPS listener's certificate and key are, and its port. */
export interface TlsConfig {
  readonly port: number
  readonly files: { readonly kind: 'pem'; readonly certFile: string; readonly keyFile: string } | { readonly kind: 'pkcs12'; readonly file: string; readonly passphrase: string | null }
}

/** `--tls-cert` with `--tls-key`, or `--tls-pfx` (its password in FLOE_TLS_PASSPHRASE or Micro's MICRO_SSL_CERT_PASSWORD), and `--tls-port`. */
export function parseTls(flags: ConfigFlags, pick: (flag: string | undefined, name: string) => string | undefined, problems: string[]): TlsConfig | null {
  const certFile = pick(flags.tlsCert, 'FLOE_TLS_CERT')
  const keyFile = pick(flags.tlsKey, 'FLOE_TLS_KEY')
  const pfx = pick(flags.tlsPfx, 'FLOE_TLS_PFX')
  const portRaw = pick(flags.tlsPort, 'FLOE_TLS_PORT')
  // Micro reads its PKCS#12 password from MICRO_SSL_CERT_PASSWORD.
  const passphrase = pick(undefined, 'FLOE_TLS_PASSPHRASE') ?? pick(undefined, 'MICRO_SSL_CERT_PASSWORD') ?? null
  if (certFile === undefined && keyFile === undefined && pfx === undefined) {
    if (portRaw !== undefined) problems.push('the HTTPS port (--tls-port, FLOE_TLS_PORT) needs a certificate: --tls-cert with --tls-key, or --tls-pfx')
    return null
  }
  const port = parsePort(portRaw ?? '9543', problems, 'the HTTPS port (--tls-port, FLOE_TLS_PORT)')
  if (pfx !== undefined) {
    if (certFile !== undefined || keyFile !== undefined) problems.push('give the HTTPS certificate either as --tls-pfx or as --tls-cert with --tls-key, not both')
    return { port, files: { kind: 'pkcs12', file: path.resolve(pfx), passphrase } }
  }
  if (certFile === undefined || keyFile === undefined) {
    problems.push('--tls-cert (FLOE_TLS_CERT) and --tls-key (FLOE_TLS_KEY) go together')
    return null
  }
  return { port, files: { kind: 'pem', certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) } }
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
