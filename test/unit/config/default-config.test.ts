// The embedded default: with no config, the gateway fronts @modelcontextprotocol/server-everything.
import { existsSync } from 'node:fs'
import t from 'tap'
import { createDefaultConfig } from '../../../src/config/default-config.ts'
import { validateConfig } from '../../../src/config/schema.ts'

t.test('createDefaultConfig → one stdio backend running the installed server-everything', async (t) => {
  const raw = createDefaultConfig()
  const backends = raw.backends as Array<Record<string, unknown>>
  t.equal(backends.length, 1, 'one backend')
  t.match(backends[0], { name: 'everything', transport: 'stdio', command: process.execPath, env: {}, namespace: '' })
  const args = backends[0].args as string[]
  t.equal(args[1], 'stdio', 'started in stdio mode')
  t.ok(existsSync(args[0]), `entry point ${args[0]} → exists`)
  t.ok(validateConfig(raw).ok, 'passes validation')
})

t.test('createDefaultConfig twice → independent objects (the loader mutates and freezes its copy)', async (t) => {
  const first = createDefaultConfig()
  const second = createDefaultConfig()
  t.not(first, second)
  t.not(first.backends, second.backends)
})
