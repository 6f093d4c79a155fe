import type { Server, Socket } from 'node:net'

/** How the listeners treat connections, so that no client can hold the server for the others. */
export interface ConnectionLimits {
  /** Connections from one client address at once; more are closed as soon as they open. */
  readonly maxPerAddress: number
  /**
   * How long a new connection may stay silent before its first byte, in milliseconds. Node's
   * `headersTimeout` starts only with the first byte: a connection that sends nothing was held
   * until the client let it go, and 1 030 of them filled the server's connection limit.
   */
  readonly firstByteTimeoutMs: number
}

/**
 * Applies {@link ConnectionLimits} to a listener (HTTP or HTTPS): counts open connections per
 * remote address, and closes one over the cap, or one silent past the first-byte timeout. Once a
 * request has begun, Node's own timeouts apply (headers, whole request, keep-alive).
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
): { readonly openByAddress: ReadonlyMap<string, number> } {
  const openByAddress = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown'
    const open = (openByAddress.get(address) ?? 0) + 1
    if (open > limits.maxPerAddress) {
      socket.destroy()
      return
    }
    openByAddress.set(address, open)
    socket.once('close', () => {
      const left = (openByAddress.get(address) ?? 1) - 1
      if (left <= 0) openByAddress.delete(address)
      else openByAddress.set(address, left)
    })
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy()
    }, limits.firstByteTimeoutMs)
    silent.unref()
    // No 'data' listener: Node's HTTP parser reads the socket itself, and one would get in its way.
    socket.once('close', () => clearTimeout(silent))
  })
  return { openByAddress }
}
