// A port nobody listens on right now: bind to port 0 on loopback, note the port, close.
import { once } from 'node:events'
import { createServer } from 'node:net'

export async function findFreePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no address')
  return address.port
}
