// Reload without restart (README "Reload without restart") on real processes: a gateway process with
// a config file, SDK v2 backends as child processes; the file is rewritten, then SIGHUP or
// POST /admin/reload. Tests wait on log lines and fixture events, never on time.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { startFixture, type FixtureProcess } from '../helpers/backend-process.ts'
import { createRawClient, metricValue, type RawMcpClient } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig, type GatewayProcess } from '../helpers/gateway-process.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const ADMIN_TOKEN = 'reload-admin-token-0123456789'

function httpBackend(name: string, fixture: FixtureProcess): Record<string, unknown> {
  return { name, transport: 'http', url: fixture.url, namespace: name }
}

async function toolNames(raw: RawMcpClient): Promise<string[]> {
  const reply = await raw.rpc('tools/list')
  return (reply.json.result.tools as Array<{ name: string }>).map((tool) => tool.name)
}

// Whether the fixture has emitted `name` already (an event not consumed yet), without waiting.
async function alreadyEmitted(fixture: FixtureProcess, name: string): Promise<boolean> {
  const event = fixture.waitForEvent(name).then(() => true, () => false)
  // An event already in the backlog settles within microtasks; setImmediate runs after them.
  return Promise.race([event, new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))])
}

// Rewrites the config file, sends SIGHUP and resolves with the reload's log line.
async function reloadBySignal(gw: GatewayProcess, path: string, config: unknown): Promise<Record<string, unknown>> {
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config))
  const from = gw.lines.length
  gw.child.kill('SIGHUP')
  return JSON.parse(await gw.waitForLine(/"config reload/, from)) as Record<string, unknown>
}

t.test('SIGHUP: a backend added and one removed, without dropping the others', async (t) => {
  const [alpha, beta, gamma] = await Promise.all(['alpha', 'beta', 'gamma'].map((name) => startFixture(t, BACKEND, ['--name', name, '--extras'])))
  const path = writeConfig({ backends: [httpBackend('a', alpha), httpBackend('b', beta)] })
  const gw = await startGatewayProcess(t, path)
  await Promise.all([alpha.waitForEvent('listen-opened'), beta.waitForEvent('listen-opened')])
  const raw = createRawClient(t, gw.url)
  t.same((await toolNames(raw)).filter((n) => n.endsWith('__echo')), ['a__echo', 'b__echo'], 'before: a and b')

  const listen = await raw.stream('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'listen-1' })
  t.equal((await listen.events.next()).value?.message.method, 'notifications/subscriptions/acknowledged')
  const call = await raw.stream('tools/call', { name: 'b__progress', arguments: { steps: 3, delayMs: 300 } }, { meta: { progressToken: 'p' } })
  t.equal((await call.events.next()).value?.message.method, 'notifications/progress', 'a call to b is in flight')

  const line = await reloadBySignal(gw, path, { backends: [httpBackend('a', alpha), httpBackend('c', gamma)] })
  t.match(line, { msg: 'config reloaded', source: 'SIGHUP', outcome: 'applied', added: ['c'], removed: ['b'], changed: [] })

  const changed = await listen.events.next()
  t.equal(changed.value?.message.method, 'notifications/tools/list_changed', 'the open listen stream is told the tools changed')
  const rest: string[] = []
  for await (const event of call.events) rest.push(event.message.method ?? (event.message.result ? 'result' : 'error'))
  t.same(rest, ['notifications/progress', 'notifications/progress', 'result'], 'the in-flight call to the removed backend completed')

  const names = await toolNames(raw)
  t.ok(names.includes('a__echo') && names.includes('c__echo'), 'after: a kept, c added')
  t.notOk(names.some((n) => n.startsWith('b__')), 'after: b gone')
  const gone = await raw.rpc('tools/call', { name: 'b__echo', arguments: { text: 'x' } })
  t.equal(gone.json.error?.code, -32602, 'a removed backend\'s tool is unknown')

  // The unchanged backend's upstream listen was never re-opened, and the client's stream still
  // carries its changes.
  await raw.rpc('tools/call', { name: 'a__notify-tools-changed', arguments: { tool: 'fresh' } })
  t.equal((await listen.events.next()).value?.message.method, 'notifications/tools/list_changed', 'the same stream gets a\'s own change')
  await gw.waitForLine(/"removed backend closed"/)
  await beta.waitForEvent('listen-closed')
  t.equal(await alreadyEmitted(alpha, 'listen-closed'), false, 'a\'s upstream listen was never closed')
  t.equal(await alreadyEmitted(gamma, 'listen-opened'), true, '(and the check sees an event that did come: c\'s listen opened)')

  const metrics = await raw.send('GET', '/metrics')
  t.equal(metricValue(metrics.text, 'mcp_gateway_config_reloads_total', { outcome: 'applied' }), 1, 'counted')
  const admin = await raw.send('POST', '/admin/reload', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  t.equal(admin.status, 404, 'no adminToken → no admin endpoint')
})

t.test('SIGHUP with a bad config → refused, every error listed, the old config kept', async (t) => {
  const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const path = writeConfig({ backends: [httpBackend('a', alpha)] })
  const gw = await startGatewayProcess(t, path)
  await gw.waitForLine(/"backend up"/)
  const raw = createRawClient(t, gw.url)
  const before = await toolNames(raw)

  const bad = { backends: [httpBackend('a', alpha), { name: 'x y', transport: 'http', url: 'nope' }], bogus: 1 }
  const line = await reloadBySignal(gw, path, bad)
  t.match(line, { outcome: 'refused', level: 50 })
  const errors = (line.errors as string[]).join('\n')
  for (const fragment of ['backends[1].name', 'backends[1].url', 'bogus']) t.match(errors, fragment, `lists ${fragment}`)
  t.same(await toolNames(raw), before, 'the running backends are kept')

  const notJson = await reloadBySignal(gw, path, '{ nope')
  t.match(notJson, { outcome: 'refused', errors: [/not valid JSON/] })

  // A storm of signals: the process stays up and every reload it ran is counted once.
  writeFileSync(path, JSON.stringify({ backends: [httpBackend('a', alpha)] }))
  for (let i = 0; i < 20; i++) gw.child.kill('SIGHUP')
  const from = gw.lines.length
  gw.child.kill('SIGHUP')
  await gw.waitForLine(/"config reloaded"/, from)
  const metrics = await raw.send('GET', '/metrics')
  t.equal(metricValue(metrics.text, 'mcp_gateway_config_reloads_total', { outcome: 'refused' }), 2)
  t.ok(metricValue(metrics.text, 'mcp_gateway_config_reloads_total', { outcome: 'unchanged' }) <= 21, 'the storm ran no more reloads than signals')
  t.equal(gw.child.exitCode, null, 'still running')
})

t.test('POST /admin/reload: bearer-checked, behind the Host guard; restart-needed settings named; old cursors refused clearly', async (t) => {
  const [alpha, beta] = await Promise.all(['alpha', 'beta'].map((name) => startFixture(t, BACKEND, ['--name', name])))
  const config = { listPageSize: 3, backends: [httpBackend('a', alpha), httpBackend('b', beta)] }
  const path = writeConfig(config)
  const gw = await startGatewayProcess(t, path, { MCP_GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN })
  await Promise.all(['a', 'b'].map((name) => gw.waitForLine(new RegExp(`"backend":"${name}".*"msg":"backend up"`))))
  const raw = createRawClient(t, gw.url)
  const post = (headers: Record<string, string>) => raw.send('POST', '/admin/reload', { headers })

  const none = await post({})
  t.equal(none.status, 401, 'no token → 401')
  t.match(none.headers['www-authenticate'], /^Bearer/)
  t.equal((await post({ authorization: 'Bearer wrong-token-wrong-token' })).status, 401, 'wrong token → 401')
  t.equal((await post({ authorization: `Bearer ${ADMIN_TOKEN}`, host: 'evil.example' })).status, 403, 'a Host not allowed → 403 first')
  const mcp = await raw.send('POST', '/mcp/admin/reload', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  t.equal(mcp.status, 404, 'not served under the MCP endpoint')

  const first = await raw.rpc('tools/list')
  const cursor = first.json.result.nextCursor as string
  t.type(cursor, 'string', 'a paged listing')
  writeFileSync(path, JSON.stringify({ ...config, listPageSize: 7, backends: [httpBackend('a', alpha)] }))
  const ok = await post({ authorization: `Bearer ${ADMIN_TOKEN}` })
  t.equal(ok.status, 200, ok.text)
  t.match(ok.json, { outcome: 'applied', removed: ['b'], restartNeeded: ['listPageSize'], errors: [] })
  t.match(await gw.waitForLine(/restart needed for/), /"level":40.*restart needed for: listPageSize/, 'logged as needing a restart')

  const stale = await raw.rpc('tools/list', { cursor })
  t.equal(stale.json.error?.code, -32602)
  t.match(stale.json.error?.message, /the config was reloaded\); start again without a cursor/, 'a cursor over the old backends → a clear error')

  writeFileSync(path, '{"backends": 3}')
  const refused = await post({ authorization: `Bearer ${ADMIN_TOKEN}` })
  t.equal(refused.status, 422)
  t.match(refused.json, { outcome: 'refused', errors: [/backends/] })
})
