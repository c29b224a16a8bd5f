// plugins/backends.ts at onReady: probing, then the listen hub's start. A throw in hub.start is
// caught and logged at error, never an unhandled rejection (which would end this test process).
import t from 'tap'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'

t.test('hub.start throws after probing → logged once at error, the app keeps running', async (t) => {
  const result = validateConfig({ port: 0, stateSecret: 'test-secret', backends: [] })
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
