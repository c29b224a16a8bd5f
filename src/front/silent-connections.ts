// Connections that have not sent a request yet, destroyed when the app closes. Fastify's
// `forceCloseConnections: 'idle'` relies on node's closeIdleConnections(), which leaves such a
// connection open: a client that connects and sends nothing would hold close() until a timeout.
import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'

// Returns the closer: call it as late as possible before the server stops accepting. An HTTP/2
// server (no closeIdleConnections) sends its sessions GOAWAY from close() itself: nothing to track.
export function trackSilentConnections(server: Server): () => void {
  if (typeof server.closeIdleConnections !== 'function') return () => undefined
  const silent = new Set<Socket>()
  // Over TLS a request's socket is the TLS socket, which 'secureConnection' hands over.
  const event = server instanceof TlsServer ? 'secureConnection' : 'connection'
  server.on(event, (socket: Socket) => {
    silent.add(socket)
    socket.once('close', () => silent.delete(socket))
  })
  server.on('request', (req: IncomingMessage) => silent.delete(req.socket))
  return () => {
    for (const socket of silent) socket.destroy()
    silent.clear()
  }
}
