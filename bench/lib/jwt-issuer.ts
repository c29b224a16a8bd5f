// A stand-in authorization server for the benchmark: its JWKS on 127.0.0.1 (fetched once by the
// gateway, which then caches it) and one signed access token for the gateway's resource, as a
// client would reuse until it expires.
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { assertLoopbackListener } from './loopback-guard.ts'

export interface JwtIssuer {
  issuer: string
  jwksUri: string
  token: string
  stop(): Promise<void>
}

export async function startJwtIssuer(resource: string): Promise<JwtIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' }] })
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  assertLoopbackListener(port)
  const issuer = `http://127.0.0.1:${port}`
  const token = await new SignJWT({ scope: 'mcp', client_id: 'bench' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench-1', typ: 'at+jwt' })
    .setIssuer(issuer).setAudience(resource).setSubject('bench-user').setIssuedAt().setExpirationTime('2h')
    .sign(privateKey)
  const stop = async (): Promise<void> => {
    const closed = once(server, 'close')
    server.close()
    server.closeAllConnections()
    await closed
  }
  return { issuer, jwksUri: `${issuer}/jwks`, token, stop }
}
