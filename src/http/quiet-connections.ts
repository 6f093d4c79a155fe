import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Closing a Node server waits for every open connection. Fastify's `forceCloseConnections: 'idle'`
 * closes keep-alive connections between two requests, but not one that was opened and has sent
 * nothing yet (a browser's speculative connection, a load balancer's probe): one such socket kept
 * `floe start` from stopping on SIGTERM for as long as its client kept it open. This tracks the
 * requests in progress on each connection; `closeQuiet()` destroys every connection without one at
 * once, ends every other one as soon as its last request is answered, and destroys what is left
 * once `graceMs` have passed, so that a stop always ends.
 */
export function trackConnections(server: Server, graceMs: number): { closeQuiet(): void } {
  const inProgress = new Map<Socket, number>()
  let closing = false
  server.on('connection', (socket: Socket) => {
    inProgress.set(socket, 0)
    socket.once('close', () => inProgress.delete(socket))
  })
  server.on('request', (request, response) => {
    const socket = request.socket
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1)
    response.once('close', () => {
      const requests = inProgress.get(socket)
      if (requests === undefined) return // the connection closed first
      const left = requests - 1
      inProgress.set(socket, left)
      // Stopping: a connection whose last request is answered is not kept for another.
      if (closing && left === 0) socket.end()
    })
  })
  return {
    closeQuiet() {
      closing = true
      for (const [socket, requests] of inProgress) if (requests === 0) socket.destroy()
      setTimeout(() => {
        for (const socket of inProgress.keys()) socket.destroy()
      }, graceMs).unref()
    },
  }
}
