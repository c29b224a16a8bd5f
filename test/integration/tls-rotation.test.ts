// Certificate rotation without dropping connections (README "HTTPS and HTTP/2"): on a real gateway
// process, SIGHUP re-reads the certificate while an h2 stream is open; the stream goes on, a new
// connection gets the new certificate, and a bad set is refused with the old one kept. In process,
// a file rewritten in place is picked up by the watcher.
import t, { type Test } from 'tap'
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ClientHttp2Session } from 'node:http2'
import type { TLSSocket } from 'node:tls'
import { spawnGateway, startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { startTlsBench, type Issued } from '../helpers/test-pki.ts'
import { connectH2, readBody, rpcH2 } from '../helpers/h2-client.ts'
import { once } from 'node:events'

const { ca, server, backends } = await startTlsBench(t)
const next = ca.issue('gateway-next')

function peerName(session: ClientHttp2Session): string {
  return (session.socket as TLSSocket).getPeerCertificate().subject.CN as string
}

// dir/live → dir/<version>: the configured paths go through the link (so the watcher, on the
// version directory, never sees the swap: only SIGHUP can pick it up).
function publish(dir: string, version: string, files: { cert: string; key: string }): void {
  mkdirSync(join(dir, version))
  writeFileSync(join(dir, version, 'cert.pem'), files.cert)
  writeFileSync(join(dir, version, 'key.pem'), files.key)
  symlinkSync(version, join(dir, `live-${version}`))
  renameSync(join(dir, `live-${version}`), join(dir, 'live'))
}

async function echoes(t: Test, session: ClientHttp2Session): Promise<void> {
  const reply = await rpcH2(session, 'tools/call', { name: 'a__echo', arguments: { text: 'x' } })
  t.equal(reply.status, 200, 'served')
  await readBody(reply)
}

t.test('SIGHUP with a stream open → the stream survives, a new connection sees the new certificate', async (t) => {
  const dir = join(ca.dir, 'rotation')
  mkdirSync(dir)
  publish(dir, 'v1', server)
  const config = { backends, tls: { certFile: join(dir, 'live', 'cert.pem'), keyFile: join(dir, 'live', 'key.pem') } }
  const gateway = await startGatewayProcess(t, writeConfig(config))
  const origin = new URL(gateway.url).origin
  await gateway.waitForLine(/"backend up"/)
  const old = await connectH2(t, origin, ca.cert)
  t.equal(peerName(old), 'gateway', 'first certificate served')
  const open = await rpcH2(old, 'tools/call', { name: 'a__progress', arguments: { steps: 100_000, delayMs: 20 } }, { meta: { progressToken: 'long' } })
  // Flowing: each 'data' event is a chunk as it arrives, so the next one came after whatever preceded it.
  t.match(String((await once(open.stream, 'data'))[0]), /"progressToken":"long"/, 'the stream is open')

  publish(dir, 'v2', next)
  gateway.child.kill('SIGHUP')
  t.match(JSON.parse(await gateway.waitForLine(/tls certificate reloaded/)), { reason: 'SIGHUP' })
  const fresh = await connectH2(t, origin, ca.cert)
  t.equal(peerName(fresh), 'gateway-next', 'a new connection → the new certificate')
  await echoes(t, fresh)
  t.match(String((await once(open.stream, 'data'))[0]), /notifications\/progress/, 'the open stream delivers after the reload')
  t.equal(peerName(old), 'gateway', 'the old connection keeps its certificate')
  await echoes(t, old)

  publish(dir, 'v3', { cert: server.cert, key: next.key })
  gateway.child.kill('SIGHUP')
  t.match(await gateway.waitForLine(/tls reload refused/), /is not the key of/, 'a bad set → refused, logged')
  const after = await connectH2(t, origin, ca.cert)
  t.equal(peerName(after), 'gateway-next', 'the current certificate stays')
  publish(dir, 'v4', next)
  gateway.child.kill('SIGHUP')
  t.match(JSON.parse(await gateway.waitForLine(/tls certificate unchanged/)), { reason: 'SIGHUP' }, 'the same set again → answered, nothing swapped')
  open.stream.close()
  for (const session of [old, fresh, after]) session.close()
})

t.test('certificate files rewritten in place → reloaded by the watcher', async (t) => {
  const dir = join(ca.dir, 'watched')
  mkdirSync(dir)
  const write = (files: Issued): void => {
    writeFileSync(join(dir, 'cert.pem'), files.cert)
    writeFileSync(join(dir, 'key.pem'), files.key)
  }
  write(server)
  const gateway = await startGateway(t, { backends, tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } }, { logs: true })
  const before = await connectH2(t, gateway.origin, ca.cert)
  t.equal(peerName(before), 'gateway')
  write(next)
  t.match(await gateway.logs!.waitFor((r) => r.msg === 'tls certificate reloaded'), { reason: 'file change' })
  const after = await connectH2(t, gateway.origin, ca.cert)
  t.equal(peerName(after), 'gateway-next', 'a new connection → the new certificate')
  await echoes(t, before)
  before.close()
  after.close()
})

t.test('a certificate and a key that do not match, at start → exit 2 with the problem on stderr', async (t) => {
  const gateway = spawnGateway(t, writeConfig({ backends, tls: { certFile: server.certFile, keyFile: next.keyFile } }))
  t.equal(await gateway.exited, 2, 'exit code 2 (configuration)')
  t.match(gateway.lines.join('\n'), /invalid configuration:[\s\S]*tls\.keyFile: .*gateway-next\.key is not the key of .*gateway\.pem/)
})
