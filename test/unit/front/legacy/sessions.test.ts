// Legacy session ids (LEGACY-4/5/6): minted sealed, opened by any holder of the secret, refused when
// unknown, forged, expired, ended, or named with another version.
import t from 'tap'
import { LegacySessions } from '../../../../src/front/legacy/sessions.ts'
import { GatewayError } from '../../../../src/errors.ts'
import { Sealer } from '../../../../src/routing/seal.ts'
import { MemoryEndedSessions } from '../../../../src/shared-state/ended-sessions.ts'

const INIT = { requested: '2025-11-25', version: '2025-11-25', capabilities: { elicitation: {}, roots: { listChanged: true } }, clientInfo: { name: 'c', version: '1' } }

function sessions(secret = 'secret-one-secret-one-secret-one!', now = () => 1_000_000): LegacySessions {
  return new LegacySessions({ sealer: new Sealer(secret), ended: new MemoryEndedSessions(now), ttlMs: 60_000, now })
}

t.test('create → open on another instance sharing the secret', async (t) => {
  const { token, claims } = sessions().create(INIT, 'anonymous')
  t.match(claims, { version: '2025-11-25', clientFlags: ['r', 'ef'], clientInfo: { name: 'c', version: '1' }, principal: 'anonymous', issuedAt: 1_000_000, expiresAt: 1_060_000 })
  t.same(await sessions().open(token), claims, 'a second process opens it (no store)')
  t.equal(await sessions('another-secret-another-secret-12').open(token), undefined, 'another secret → unknown')
  t.equal(await sessions(undefined, () => 1_060_001).open(token), undefined, 'expired → unknown')
  t.not(sessions().create(INIT, 'anonymous').claims.id, claims.id, 'ids are random')
})

t.test('openFrom: the LEGACY-4/6 checks in order', async (t) => {
  const gateway = sessions()
  const { token } = gateway.create(INIT, 'anonymous')
  const cases: Array<[string, Record<string, string>, string | undefined]> = [
    ['no session id → SESSION_REQUIRED', {}, 'MCP_GATEWAY_SESSION_REQUIRED'],
    ['garbage → SESSION_UNKNOWN', { 'mcp-session-id': 'garbage' }, 'MCP_GATEWAY_SESSION_UNKNOWN'],
    ['oversized → SESSION_UNKNOWN', { 'mcp-session-id': 'x'.repeat(5_000) }, 'MCP_GATEWAY_SESSION_UNKNOWN'],
    ['other version → VERSION_MISMATCH', { 'mcp-session-id': token, 'mcp-protocol-version': '2025-06-18' }, 'MCP_GATEWAY_SESSION_VERSION_MISMATCH'],
    ['negotiated version → ok', { 'mcp-session-id': token, 'mcp-protocol-version': '2025-11-25' }, undefined],
    ['no version header → ok (the session names it)', { 'mcp-session-id': token }, undefined],
  ]
  for (const [name, headers, code] of cases) {
    const opened = await gateway.openFrom(headers, 'anonymous')
    if (code === undefined) t.notOk(opened instanceof GatewayError, name)
    else t.equal(opened instanceof GatewayError ? opened.code : undefined, code, name)
  }
})

t.test('openFrom: a session of another principal → SESSION_UNKNOWN (bound to its caller)', async (t) => {
  const gateway = sessions()
  const { token } = gateway.create(INIT, 'binding-of-alice')
  const headers = { 'mcp-session-id': token }
  t.notOk((await gateway.openFrom(headers, 'binding-of-alice')) instanceof GatewayError, 'its own caller → ok')
  const other = await gateway.openFrom(headers, 'binding-of-bob')
  t.equal(other instanceof GatewayError ? other.code : undefined, 'MCP_GATEWAY_SESSION_UNKNOWN', 'another caller → unknown')
})

t.test('end → refused until expiry, on this instance', async (t) => {
  const gateway = sessions()
  const { token, claims } = gateway.create(INIT, 'anonymous')
  await gateway.end(claims)
  t.equal(await gateway.open(token), undefined, 'ended → unknown')
})

t.test('a token opened once is opened again without decryption, until it expires or its session ends', async (t) => {
  let now = 1_000_000
  const sealer = new Sealer('secret-one-secret-one-secret-one!')
  let decrypted = 0
  const open = sealer.open.bind(sealer)
  sealer.open = (token, at) => {
    decrypted++
    return open(token, at)
  }
  const gateway = new LegacySessions({ sealer, ended: new MemoryEndedSessions(() => now), ttlMs: 60_000, now: () => now })
  const { token, claims } = gateway.create(INIT, 'anonymous')
  t.same(await gateway.open(token), claims)
  t.same(await gateway.open(token), claims)
  t.equal(decrypted, 1, 'the second open used the opened token')
  t.equal(await gateway.open(`${token.slice(0, -2)}AA`), undefined, 'a tampered token is still refused')
  await gateway.end(claims)
  t.equal(await gateway.open(token), undefined, 'ended → refused though opened before')
  const second = gateway.create(INIT, 'anonymous')
  t.ok(await gateway.open(second.token))
  now = 1_060_001
  t.equal(await gateway.open(second.token), undefined, 'expired → refused though opened before')
})
