import { readFileSync } from 'node:fs'
import { createServer, type ServerOptions } from 'node:https'
import { guardConnections } from './connection-guard.js'
import type { AddressInfo } from 'node:net'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ConfigError, type Config, type TlsConfig } from '../config/index.js'
import { trackConnections } from './quiet-connections.js'

/** A second listener, over HTTPS, that hands every request to the same routes (as Micro's port 9543). */
export interface SecureListener {
  /** Starts listening; the address, as `https://host:port`. */
  listen(): Promise<string>
  /** Stops accepting, lets requests in progress finish (within the grace time), then resolves. */
  close(): Promise<void>
}

function readFile(file: string, what: string): Buffer {
  try {
    return readFileSync(file)
  } catch (error) {
    throw new ConfigError([
      `cannot read the ${what} ${file}: ${error instanceof Error ? error.message : String(error)}`,
    ])
  }
}

function credentials(tls: TlsConfig): ServerOptions {
  const { files } = tls
  if (files.kind === 'pkcs12')
    return {
      pfx: readFile(files.file, 'PKCS#12 file (--tls-pfx)'),
      ...(files.passphrase === null ? {} : { passphrase: files.passphrase }),
    }
  return {
    cert: readFile(files.certFile, 'certificate (--tls-cert)'),
    key: readFile(files.keyFile, 'private key (--tls-key)'),
  }
}

/**
 * `handle` gets every request (the routes' entry point). Reads the certificate and key at once, so that a start with unusable ones stops before anything
 * else (a ConfigError naming the file or the problem). The server has the main listener's limits.
 */
export function createSecureListener(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  http: Config['http'],
  tls: TlsConfig,
  options: { maxHeaderBytes: number; graceMs: number },
): SecureListener {
  let server: ReturnType<typeof createServer>
  try {
    server = createServer(
      {
        ...credentials(tls),
        requestTimeout: http.requestTimeoutMs,
        headersTimeout: http.headersTimeoutMs,
        keepAliveTimeout: http.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(
          100,
          Math.min(5000, Math.floor(http.requestTimeoutMs / 2)),
        ),
        maxHeaderSize: options.maxHeaderBytes,
      },
      handle,
    )
  } catch (error) {
    if (error instanceof ConfigError) throw error
    const why = error instanceof Error ? error.message : String(error)
    // A PKCS#12 file read with the wrong password (or none) fails its MAC check.
    const named =
      tls.files.kind === 'pkcs12'
        ? `--tls-pfx ${tls.files.file} cannot be used: ${why}${/mac verify|password/i.test(why) ? ' (is its password FLOE_TLS_PASSPHRASE, or MICRO_SSL_CERT_PASSWORD, right?)' : ''}`
        : `the TLS certificate and key (--tls-cert ${tls.files.certFile}, --tls-key ${tls.files.keyFile}) cannot be used: ${why}`
    throw new ConfigError([named])
  }
  server.maxConnections = http.maxConnections
  guardConnections(server, {
    maxPerAddress: http.maxConnectionsPerAddress,
    firstByteTimeoutMs: http.headersTimeoutMs,
  })
  const connections = trackConnections(server, options.graceMs)
  let listening = false
  return {
    async listen() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(tls.port, http.host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      listening = true
      const { address, port, family } = server.address() as AddressInfo
      return `https://${family === 'IPv6' ? `[${address}]` : address}:${port}`
    },
    async close() {
      if (!listening) return
      listening = false
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      connections.closeQuiet()
      await closed
    },
  }
}
