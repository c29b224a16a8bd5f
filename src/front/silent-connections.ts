// Connections that have not sent a request yet, destroyed when the app closes. Fastify's
// `forceCloseConnections: 'idle'` relies on node's closeIdleConnections(), which leaves such a
// connection open: a client that connects and sends nothing would hold close() until a timeout.
import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'

// Returns the closer: call it as late as possible before the server stops accepting.
export function trackSilentConnections(server: Server): () => void {
  const silent = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    silent.add(socket)
    socket.once('close', () => silent.delete(socket))
  })
  server.on('request', (req: IncomingMessage) => silent.delete(req.socket))
  return () => {
    for (const socket of silent) socket.destroy()
    silent.clear()
  }
}
