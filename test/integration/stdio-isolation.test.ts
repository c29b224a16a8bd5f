// What a stdio child can reach (README "What a stdio backend can reach"), on real child processes:
// as another user it cannot read the gateway's environment from /proc; its secrets can come from
// files; it leads its own process group, and shutdown takes the whole group, so a child and what it
// started go even when both ignore stdin EOF and SIGTERM.
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { readStderrEvent } from '../helpers/stdio-log-capture.ts'
import { FAST, createHarness, deadline, fixtureConfig, isProcessGone, toolText } from '../helpers/stdio-harness.ts'

const IS_ROOT = process.getuid?.() === 0
const NOBODY = /^nobody:[^:]*:(\d+):(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'))

t.test('a child without user/group → the gateway\'s own uid: it can read the gateway\'s environment', async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-modern'))
  await backend.start()
  t.same(JSON.parse(await toolText(backend, 'ids')).uid, process.getuid?.(), 'same uid as the gateway')
  t.match(await toolText(backend, 'read-parent-environ'), /^read \d+ bytes$/, 'the exposure user/group removes')
})

t.test('user "nobody" (gateway as root) → the child runs as nobody, cannot read the gateway\'s environment, no extra groups', {
  skip: IS_ROOT && NOBODY !== null ? false : 'needs root and a "nobody" user',
}, async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-modern', { user: 'nobody' }))
  await backend.start()
  t.match(backend.status(), { up: true })
  const ids = JSON.parse(await toolText(backend, 'ids'))
  t.same([ids.uid, ids.gid], [Number(NOBODY![1]), Number(NOBODY![2])], 'nobody\'s uid and its own group')
  t.notOk(ids.groups.includes(0), 'root\'s supplementary groups dropped')
  t.equal(await toolText(backend, 'read-parent-environ'), 'refused EACCES', '/proc/<gateway>/environ is not readable')
})

t.test('envFiles → the variable from the file, its final line end dropped; nothing else of the gateway\'s', async (t) => {
  const dir = t.testdir({ token: 'from-a-file\n' })
  const { backend } = createHarness(t, fixtureConfig('stdio-modern', { env: { PLAIN: 'yes' }, envFiles: { TOKEN: join(dir, 'token') } }))
  await backend.start()
  const env = JSON.parse(await toolText(backend, 'env')) as Record<string, string>
  // tap's coverage hook (@tapjs/processinfo) injects its own variables into every spawn.
  const own = Object.entries(env).filter(([key, value]) => !key.startsWith('_TAPJS_PROCESSINFO_') && !(key === 'NODE_OPTIONS' && value.includes('@tapjs/processinfo')))
  t.same(Object.fromEntries(own), { PLAIN: 'yes', TOKEN: 'from-a-file' })
})

t.test('an env file that cannot be read → down with the reason (no child started)', async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-modern', { envFiles: { TOKEN: '/nonexistent/token' } }))
  await backend.start()
  t.match(backend.status(), { up: false, reason: /^child could not be started: envFiles\.TOKEN: \/nonexistent\/token cannot be read \(ENOENT\)/ })
})

// SIGKILL reaches the whole group at once, but the grandchild (not the gateway's child) dies on its
// own schedule: its FIFO's EOF says when. 500 ms grace: the child is scheduled to log each step.
t.test('close() → the child\'s whole process group goes, a grandchild that ignores SIGTERM included', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stdio-group-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const fifo = join(dir, 'grandchild-alive')
  execFileSync('mkfifo', [fifo])
  const alive = createReadStream(fifo).resume()
  const grandchildGone = once(alive, 'end')
  const group = fixtureConfig('stdio-group')
  const { backend, logs, waitForEvent } = createHarness(t, { ...group, args: [...group.args, fifo] }, { ...FAST, killGraceMs: 500 })
  const started = backend.start()
  const { pid, grandchild } = await waitForEvent((event) => event.event === 'started') as { pid: number; grandchild: number }
  t.ok(!isProcessGone(grandchild), 'the grandchild runs')
  await backend.close()
  await started
  t.ok(isProcessGone(pid), 'the child is gone')
  await deadline(grandchildGone, 'the grandchild to die')
  t.ok(isProcessGone(grandchild), 'the grandchild is gone with its group')
  const events = logs.records.map(readStderrEvent).map((event) => event?.event).filter((event) => event !== undefined)
  t.same(events.slice(1), ['stdin-closed', 'sigterm-ignored'], 'stdin EOF, then SIGTERM to the group, then SIGKILL')
})
