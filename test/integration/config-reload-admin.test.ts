// POST /admin/reload (README "Reload without restart") on a real gateway process: only with an
// admin token, bearer-checked behind the Host guard; settings that need a restart are named; a
// cursor over the old backends is refused clearly; a bad config is 422 with its errors.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { ADMIN_TOKEN, httpBackend } from '../helpers/reload.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname

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
