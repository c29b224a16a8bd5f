// A reload whose new config does not load (SIGHUP, README "Reload without restart"): refused with
// every error listed, the running config kept; a storm of signals leaves the process up.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient, metricValue } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { httpBackend, reloadBySignal, toolNames } from '../helpers/reload.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname

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
