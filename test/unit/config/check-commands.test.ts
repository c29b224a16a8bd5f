// Start-up check of stdio commands: found and executable the way spawn looks them up.
import t from 'tap'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describeCommandProblem, findCommandProblems } from '../../../src/config/check-commands.ts'
import type { GatewayConfig } from '../../../src/config/types.ts'
import { validateConfig } from '../../../src/config/schema.ts'

t.test('describeCommandProblem', async (t) => {
  const dir = t.testdir({ 'run.sh': '#!/bin/sh\n', 'data.txt': 'x' })
  chmodSync(join(dir, 'run.sh'), 0o755)
  const cases: Array<[string, string, { env: Record<string, string>; cwd?: string }, RegExp | undefined]> = [
    ['absolute executable', process.execPath, { env: {} }, undefined],
    ['name on the default search path (no PATH in env)', 'sh', { env: {} }, undefined],
    ['name on the backend PATH', 'run.sh', { env: { PATH: dir } }, undefined],
    ['relative path against cwd', './run.sh', { env: {}, cwd: dir }, undefined],
    ['name not on PATH', 'no-such-program-x', { env: {} }, /not found on PATH \(\/usr\/bin:\/bin\)/],
    ['missing absolute path', join(dir, 'missing'), { env: {} }, /does not exist/],
    ['file without the executable bit', join(dir, 'data.txt'), { env: {} }, /is not an executable file/],
    ['a directory', dir, { env: {} }, /is not an executable file/],
    ['empty', '', { env: {} }, /must not be empty/],
  ]
  for (const [name, command, options, expected] of cases) {
    const problem = describeCommandProblem(command, options)
    if (expected === undefined) t.equal(problem, undefined, `${name} → runnable`)
    else t.match(problem, expected, `${name} → ${expected}`)
  }
})

t.test('findCommandProblems names each failing stdio backend by position', async (t) => {
  writeFileSync(join(t.testdir(), 'x'), '')
  const raw = {
    backends: [
      { name: 'ok', transport: 'stdio', command: process.execPath },
      { name: 'web', transport: 'http', url: 'http://127.0.0.1:1/mcp' },
      { name: 'bad', transport: 'stdio', command: 'no-such-program-x' },
    ],
  }
  const result = validateConfig(raw)
  t.ok(result.ok, 'config itself is valid')
  const problems = findCommandProblems((result as { config: GatewayConfig }).config)
  t.equal(problems.length, 1, 'only the missing command → one problem')
  t.match(problems[0], /^backends\[2\]\.command: "no-such-program-x" is not found on PATH/, 'path and reason')
})

t.test('loadConfig refuses a stdio command that cannot run, with every such error', async (t) => {
  const { loadConfig, ConfigError } = await import('../../../src/config/loader.ts')
  const dir = t.testdir({
    'gateway.json': JSON.stringify({ backends: [{ name: 'a', transport: 'stdio', command: '/no/such/a' }, { name: 'b', transport: 'stdio', command: 'nope-b' }] }),
  })
  const err = (() => {
    try {
      loadConfig({ argv: ['--config', join(dir, 'gateway.json')], env: {} })
    } catch (caught) {
      return caught
    }
    return undefined
  })()
  t.ok(err instanceof ConfigError, 'a ConfigError')
  t.match((err as InstanceType<typeof ConfigError>).errors, [/^backends\[0\]\.command: "\/no\/such\/a" does not exist$/, /^backends\[1\]\.command: "nope-b" is not found/], 'both listed')
})

t.test('findCommandProblems → a child user/group that cannot be used, and env files that cannot be read', async (t) => {
  const dir = t.testdir({ token: 's3cret\n' })
  const stdio = { name: 's', transport: 'stdio', command: process.execPath }
  const result = validateConfig({ backends: [
    { ...stdio, name: 'a', user: 'ghost' },
    { ...stdio, name: 'b', envFiles: { TOKEN: join(dir, 'token'), OTHER: join(dir, 'missing') } },
    { ...stdio, name: 'c', user: 'nobody', group: 'nogroup' },
  ] })
  if (!result.ok) return t.fail(result.errors.join('; '))
  const passwd = () => 'nobody:x:65534:65534::/:/bin/false\n'
  const groups = () => 'nogroup:x:65534:\n'
  t.same(findCommandProblems(result.config, { uid: 0, passwd, groups }), [
    'backends[0]: user "ghost" is not in /etc/passwd',
    `backends[1].envFiles.OTHER: ${join(dir, 'missing')} cannot be read`,
  ], 'as root: the unknown user and the missing file')
  t.same(findCommandProblems(result.config, { uid: 1000, passwd, groups }), [
    'backends[0]: user/group need the gateway to run as root (it runs as uid 1000)',
    `backends[1].envFiles.OTHER: ${join(dir, 'missing')} cannot be read`,
    'backends[2]: user/group need the gateway to run as root (it runs as uid 1000)',
  ], 'not as root: every backend asking for a user or group')
})
