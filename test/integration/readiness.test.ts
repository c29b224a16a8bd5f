// /readyz on real sockets (README "Operations"): not ready until every backend has been probed once,
// then ready only when the required backends (or minBackendsUp of them) are up; the body names
// what is missing or down, and why.
import t, { type Test } from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { findFreePort } from '../helpers/ports.ts'
import { startGateway, type StartedGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startStub } from '../helpers/stub-http.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
const deadUrl = `http://127.0.0.1:${await findFreePort()}/mcp`

async function readyz(t: Test, gateway: StartedGateway): Promise<{ status: number; body: any }> {
  const reply = await createRawClient(t, gateway.url).send('GET', '/readyz')
  return { status: reply.status, body: reply.json }
}

function twoBackends(down: Record<string, unknown> = {}): Record<string, unknown>[] {
  return [
    { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    { name: 'dead', transport: 'http', url: deadUrl, namespace: 'dead', ...down },
  ]
}

t.test('one of two backends down (both required by default) → 503 naming the down one and why', async (t) => {
  const gateway = await startGateway(t, { backends: twoBackends() })
  const { status, body } = await readyz(t, gateway)
  t.equal(status, 503)
  t.match(body, { status: 'not ready', reason: 'required backend(s) down: dead', notProbed: [], up: 1 })
  t.match(body.down, [{ name: 'dead', required: true, reason: /\S/ }])
  t.match(body.backends, [{ name: 'live', up: true }, { name: 'dead', up: false }])
})

t.test('the down backend has required: false → 200, still listed as down', async (t) => {
  const gateway = await startGateway(t, { backends: twoBackends({ required: false }) })
  const { status, body } = await readyz(t, gateway)
  t.equal(status, 200)
  t.match(body, { status: 'ready', up: 1, down: [{ name: 'dead', required: false }] })
  t.notOk('reason' in body, 'no reason when ready')
})

t.test('minBackendsUp decides instead of required: 1 of 2 up → ready with 1, not with 2', async (t) => {
  const one = await startGateway(t, { minBackendsUp: 1, backends: twoBackends() })
  t.equal((await readyz(t, one)).status, 200)
  const two = await startGateway(t, { minBackendsUp: 2, backends: twoBackends({ required: false }) })
  const { status, body } = await readyz(t, two)
  t.equal(status, 503)
  t.equal(body.reason, '1 backend(s) up, minBackendsUp is 2')
})

t.test('a backend whose first probe has not settled → 503 "not probed yet" naming it, though another is up', async (t) => {
  // A real peer that accepts the probe and never answers it.
  let onProbe: () => void = () => {}
  const seen = new Promise<void>((resolve) => (onProbe = resolve))
  const silent = await startStub(t, () => onProbe())
  const url = `${silent.origin}/mcp`
  const gateway = await startGateway(t, {
    minBackendsUp: 1,
    backends: [{ name: 'live', transport: 'http', url: alpha.url, namespace: 'live' }, { name: 'silent', transport: 'http', url, namespace: 's' }],
  }, { waitReady: false, logs: true })
  await seen // the silent backend's probe is in flight
  await gateway.logs!.waitFor((r) => r.msg === 'backend up' && r.backend === 'live')
  const { status, body } = await readyz(t, gateway)
  t.equal(status, 503)
  t.match(body, { status: 'not ready', reason: 'not probed yet: silent', notProbed: ['silent'], up: 1 })
})

t.test('no backend at all → ready', async (t) => {
  const gateway = await startGateway(t, { backends: [] })
  t.equal((await readyz(t, gateway)).status, 200)
})
