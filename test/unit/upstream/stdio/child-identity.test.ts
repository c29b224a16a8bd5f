// Who a stdio child runs as: user and group names or ids, resolved from /etc/passwd and /etc/group
// (handed in as text here); only a gateway running as root may switch.
import t from 'tap'
import { resolveChildIdentity, type IdentitySpec } from '../../../../src/upstream/stdio/child-identity.ts'

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nmcp:x:1001:1002::/home/mcp:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n'
const GROUPS = 'root:x:0:\nmcp:x:1002:\ntools:x:2000:mcp\nnogroup:x:65534:\n'
const system = (uid: number) => ({ uid, passwd: () => PASSWD, groups: () => GROUPS })

t.test('resolveChildIdentity as root', async (t) => {
  const cases: Array<[string, IdentitySpec, unknown]> = [
    ['nothing → no switch', {}, { ok: true, identity: {} }],
    ['user name → its uid and its own group', { user: 'mcp' }, { ok: true, identity: { uid: 1001, gid: 1002 } }],
    ['user and group names', { user: 'mcp', group: 'tools' }, { ok: true, identity: { uid: 1001, gid: 2000 } }],
    ['numeric user → that uid, group unchanged', { user: '4242' }, { ok: true, identity: { uid: 4242 } }],
    ['group only', { group: 'nogroup' }, { ok: true, identity: { gid: 65534 } }],
    ['numeric group', { user: 'nobody', group: '7' }, { ok: true, identity: { uid: 65534, gid: 7 } }],
    ['unknown user', { user: 'ghost' }, { ok: false, problem: 'user "ghost" is not in /etc/passwd' }],
    ['unknown group', { user: 'mcp', group: 'ghosts' }, { ok: false, problem: 'group "ghosts" is not in /etc/group' }],
    ['a prefix of a name is not the name', { user: 'mc' }, { ok: false, problem: 'user "mc" is not in /etc/passwd' }],
  ]
  for (const [name, spec, expected] of cases) t.same(resolveChildIdentity(spec, system(0)), expected, `${name} → ${JSON.stringify(expected)}`)
})

t.test('resolveChildIdentity not as root → a problem naming the uid; nothing asked → fine', async (t) => {
  t.same(resolveChildIdentity({ user: 'mcp' }, system(1000)), { ok: false, problem: 'user/group need the gateway to run as root (it runs as uid 1000)' })
  t.same(resolveChildIdentity({ group: 'tools' }, system(1000)).ok, false)
  t.same(resolveChildIdentity({}, system(1000)), { ok: true, identity: {} })
})
