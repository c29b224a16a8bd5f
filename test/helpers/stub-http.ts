// A loopback HTTP server answering every request with one handler, for misbehaving peers (huge
// replies, no reply at all, a recorded request). Closed at teardown, connections included.
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface StubServer {
  origin: string
  // Every request seen, with its headers and body.
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>
}

export async function startStub(t: Test, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<StubServer> {
  const seen: StubServer['seen'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handler(req, res, body)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    const closed = once(server, 'close')
    server.close()
    server.closeAllConnections()
    await closed
  })
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}
