// The schema language (setting-types.ts) read by read-settings.ts, on a small schema shaped like
// the settings others will add (nested objects, an optional object, booleans): defaults filled in,
// every problem listed with its path, unknown keys refused, env variables found at any depth.
import t from 'tap'
import { envSettingsOf, readSettings } from '../../../src/config/read-settings.ts'
import type { ConfigOf, Settings } from '../../../src/config/setting-types.ts'

const SCHEMA = {
  redisUrl: { type: 'string', optional: true, pattern: /^redis:\/\//, patternProblem: 'must be a redis:// URL', env: 'MCP_GATEWAY_REDIS_URL', doc: 'shared store' },
  limits: {
    type: 'object',
    doc: 'request limits',
    settings: {
      maxCalls: { type: 'integer', default: 10, min: 1, max: 100, env: 'MCP_GATEWAY_LIMITS_MAX_CALLS', doc: 'calls in flight' },
      burst: { type: 'object', doc: 'burst window', settings: { windowMs: { type: 'integer', default: 1000, doc: 'window' } } },
    },
  },
  tls: {
    type: 'object',
    optional: true,
    doc: 'TLS on the listener',
    settings: { cert: { type: 'string', doc: 'certificate file' }, strict: { type: 'boolean', default: true, doc: 'refuse old ciphers' } },
  },
  mode: { type: 'string', default: 'a', oneOf: ['a', 'b'], doc: 'mode' },
  peers: {
    type: 'list',
    doc: 'peers',
    of: { type: 'variant', key: 'kind', doc: 'a peer', variants: { tcp: { port: { type: 'integer', doc: 'port' } }, unix: { path: { type: 'string', doc: 'socket' } } } },
  },
} as const satisfies Settings

// Compile-time: the derived type of the schema above (tsc fails the build if it drifts).
type Config = ConfigOf<typeof SCHEMA>
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const DERIVED_TYPE_OK: Equal<Config, {
  readonly limits: { readonly maxCalls: number; readonly burst: { readonly windowMs: number } }
  readonly mode: string
  readonly peers: Array<{ kind: 'tcp'; readonly port: number } | { kind: 'unix'; readonly path: string }>
  readonly redisUrl?: string
  readonly tls?: { readonly cert: string; readonly strict: boolean }
}> = true

function read(raw: Record<string, unknown>): { value: Record<string, unknown>; errors: string[] } {
  const errors: string[] = []
  const value = readSettings(SCHEMA, raw, { path: '', report: (path, problem) => errors.push(`${path}: ${problem}`) })
  return { value, errors }
}

t.test('the derived type matches the schema', async (t) => {
  t.equal(DERIVED_TYPE_OK, true)
})

t.test('accepted inputs', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['{}', {}, { limits: { maxCalls: 10, burst: { windowMs: 1000 } }, mode: 'a', peers: [] }],
    ['nested value given', { limits: { burst: { windowMs: 5 } } }, { limits: { maxCalls: 10, burst: { windowMs: 5 } }, mode: 'a', peers: [] }],
    ['optional object given', { tls: { cert: '/c.pem' } }, { limits: { maxCalls: 10, burst: { windowMs: 1000 } }, tls: { cert: '/c.pem', strict: true }, mode: 'a', peers: [] }],
    ['optional string given', { redisUrl: 'redis://r:6379' }, { redisUrl: 'redis://r:6379', limits: { maxCalls: 10, burst: { windowMs: 1000 } }, mode: 'a', peers: [] }],
    ['variants', { peers: [{ kind: 'tcp', port: 1 }, { kind: 'unix', path: '/s' }] },
      { limits: { maxCalls: 10, burst: { windowMs: 1000 } }, mode: 'a', peers: [{ kind: 'tcp', port: 1 }, { kind: 'unix', path: '/s' }] }],
  ]
  for (const [name, raw, expected] of cases) {
    const { value, errors } = read(raw)
    t.same(errors, [], `${name} → no errors`)
    t.same(value, expected, `${name} → ${JSON.stringify(expected)}`)
  }
})

t.test('rejected inputs → every problem, with its path', async (t) => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['unknown nested key', { limits: { bogus: 1 } }, ['limits.bogus: unknown setting']],
    ['unknown key two levels down', { limits: { burst: { x: 1 } } }, ['limits.burst.x: unknown setting']],
    ['nested object not an object', { limits: 5 }, ['limits: must be an object, got 5']],
    ['nested integer out of range', { limits: { maxCalls: 0 } }, ['limits.maxCalls: must be an integer from 1 to 100, got 0']],
    ['required key of an optional object missing', { tls: {} }, ['tls.cert: must be a string']],
    ['boolean not a boolean', { tls: { cert: 'c', strict: 'yes' } }, ['tls.strict: must be true or false, got "yes"']],
    ['pattern with its own problem', { redisUrl: 'http://x' }, ['redisUrl: must be a redis:// URL, got "http://x"']],
    ['oneOf', { mode: 'c' }, ['mode: must be one of a, b, got "c"']],
    ['variant key missing', { peers: [{ port: 1 }] }, ['peers[0].kind: must be "tcp" or "unix"']],
    ['variant key inherited from Object.prototype', { peers: [{ kind: 'constructor' }] }, ['peers[0].kind: must be "tcp" or "unix", got "constructor"']],
    ['key of another variant', { peers: [{ kind: 'tcp', port: 1, path: '/s' }] }, ['peers[0].path: unknown setting']],
    ['top-level key named like an Object.prototype member', { toString: 1 }, ['config.toString: unknown setting']],
    ['unknown key close to a known one', { limts: {} }, ['config.limts: unknown setting; did you mean "limits"?']],
    ['unknown key close to a nested one', { limits: { maxcall: 1 } }, ['limits.maxcall: unknown setting; did you mean "maxCalls"?']],
    ['a long value is echoed shortened', { mode: 'x'.repeat(100) }, [`mode: must be one of a, b, got "${'x'.repeat(59)}…`]],
    ['three at once, all listed', { mode: 'c', limits: { maxCalls: 'x' }, peers: {} },
      ['limits.maxCalls: must be an integer from 1 to 100, got "x"', 'mode: must be one of a, b, got "c"', 'peers: must be a list, got {}']],
  ]
  for (const [name, raw, expected] of cases) t.same(read(raw).errors, expected, `${name} → ${expected.join('; ')}`)
})

t.test('envSettingsOf → variables at any depth, with their path', async (t) => {
  const table = envSettingsOf(SCHEMA)
  t.same([...table].map(([name, { path }]) => [name, path]), [
    ['MCP_GATEWAY_REDIS_URL', ['redisUrl']],
    ['MCP_GATEWAY_LIMITS_MAX_CALLS', ['limits', 'maxCalls']],
  ])
})

t.test('defaults are copies: mutating one read leaves the next intact', async (t) => {
  const schema = { hosts: { type: 'stringList', default: ['a'], doc: 'hosts' } } as const satisfies Settings
  const report = (): void => {}
  const first = readSettings(schema, {}, { path: '', report }) as { hosts: string[] }
  first.hosts.push('b')
  t.same(readSettings(schema, {}, { path: '', report }), { hosts: ['a'] })
})
