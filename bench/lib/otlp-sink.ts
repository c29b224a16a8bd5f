// A local OTLP/HTTP sink on 127.0.0.1 for the tracing scenario: accepts every export with 200 and
// counts the bytes and requests it got (the spans themselves are not decoded).
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { assertLoopbackListener } from './loopback-guard.ts'

export interface OtlpSink {
  endpoint: string
  exports(): number
  stop(): Promise<void>
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0
  const server = createServer((req, res) => {
    req.on('data', () => {}).on('end', () => {
      exports++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  assertLoopbackListener(port)
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports: () => exports,
    stop: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}
