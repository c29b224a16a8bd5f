// plugins/backends.ts at onReady: probing, then the listen hub's start. A throw in hub.start is
// caught and logged at error, never an unhandled rejection (which would end this test process).
import t from 'tap'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'

t.test('hub.start throws after probing → logged once at error, the app keeps running', async (t) => {
  const result = validateConfig({ port: 0, stateSecret: 'test-secret-test-secret-test-secret', backends: [] })
  if (!result.ok) return t.fail(result.errors.join('; '))
  const records: Array<Record<string, any>> = []
  let logged: (record: Record<string, any>) => void = () => {}
  const failure = new Promise<Record<string, any>>((resolve) => { logged = resolve })
  const stream = {
    write(line: string): void {
      const record = JSON.parse(line)
      records.push(record)
      if (record.msg === 'backend probing or listen start failed') logged(record)
    },
  }
  const app = await build(result.config, { logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  app.gateway.hub.start = () => {
    throw new Error('hub start exploded')
  }
  await app.ready()
  const record = await failure
  t.match(record, { level: 50, err: { message: 'hub start exploded' } })
  t.equal(records.filter((r) => r.err?.message === 'hub start exploded').length, 1, 'logged once')
  const live = await app.inject({ method: 'GET', url: '/livez' })
  t.equal(live.statusCode, 200, 'the app still answers')
})

t.test('no stateSecret → a random one, with a warning that says replicas must share one and restarts break state', async (t) => {
  const result = validateConfig({ port: 0, backends: [] })
  if (!result.ok) return t.fail(result.errors.join('; '))
  const warnings: Array<Record<string, any>> = []
  const stream = { write: (line: string) => void warnings.push(JSON.parse(line)) }
  const app = await build(result.config, { logger: { level: 'warn', stream } })
  t.teardown(() => app.close())
  await app.ready()
  const warning = warnings.find((r) => /STATE SECRET GENERATED/.test(r.msg))
  t.ok(warning, 'warned')
  t.match(warning?.msg, /MCP_GATEWAY_STATE_SECRET_FILE/, 'names the file variant')
  t.match(warning?.msg, /replica.*must share/, 'replicas must share it')
  t.match(warning?.msg, /restart.*cursors, requestState and session ids/, 'restarts break cursors and state')
  const cursorSealed = app.gateway.sealer.seal({ k: 'tools' })
  t.same(app.gateway.sealer.open(cursorSealed), { k: 'tools' }, 'the generated secret seals and opens')
})
