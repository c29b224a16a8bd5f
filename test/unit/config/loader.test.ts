// Config loading: file (--config or MCP_GATEWAY_CONFIG) or the embedded default, then MCP_GATEWAY_*
// environment overrides, one validation listing every error, then a deep freeze.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { CONFIG_FILE_ENV, ConfigError, ENV_SETTINGS, applyEnvOverrides, loadConfig } from '../../../src/config/loader.ts'
import { envSettingsOf } from '../../../src/config/read-settings.ts'

const ENV_EXAMPLE = new URL('../../../.env.example', import.meta.url)
const SECRET = 's3cret-s3cret-s3cret-s3cret-s3cret'
const BACKEND = { name: 'alpha', transport: 'http', url: 'http://127.0.0.1:9/mcp', namespace: 'a' }

// One test directory per test (t.testdir replaces it on each call): every file at once.
function writeConfigs(t: Test, files: Record<string, unknown>): (name: string) => string {
  const entries = Object.entries(files).map(([name, content]) => [name, typeof content === 'string' ? content : JSON.stringify(content)])
  const dir = t.testdir(Object.fromEntries(entries))
  return (name) => `${dir}/${name}`
}

t.test('no file anywhere → the embedded default (server-everything over stdio)', async (t) => {
  const config = loadConfig({ argv: [], env: {} })
  t.match(config.backends, [{ name: 'everything', transport: 'stdio', namespace: '' }])
  t.equal(config.port, 8080)
})

t.test('loadConfig() without options → the embedded default, process.env not consulted', async (t) => {
  t.match(loadConfig().backends, [{ name: 'everything' }])
})

t.test('file selection', async (t) => {
  const path = writeConfigs(t, { 'env.json': { port: 1111, backends: [BACKEND] }, 'argv.json': { port: 2222, backends: [BACKEND] } })
  const fromEnv = path('env.json')
  const fromArgv = path('argv.json')
  const cases: Array<[string, { argv: string[]; env: Record<string, string> }, number]> = [
    ['MCP_GATEWAY_CONFIG', { argv: [], env: { MCP_GATEWAY_CONFIG: fromEnv } }, 1111],
    ['--config FILE', { argv: ['--config', fromArgv], env: {} }, 2222],
    ['--config=FILE', { argv: [`--config=${fromArgv}`], env: {} }, 2222],
    ['--config beats MCP_GATEWAY_CONFIG', { argv: ['--config', fromArgv], env: { MCP_GATEWAY_CONFIG: fromEnv } }, 2222],
  ]
  for (const [name, options, port] of cases) t.equal(loadConfig(options).port, port, `${name} → port ${port} from that file`)
})

t.test('environment overrides', async (t) => {
  const file = writeConfigs(t, { 'gateway.json': { port: 1111, host: '127.0.0.1', backends: [BACKEND] } })('gateway.json')
  const cases: Array<[string, string, string, unknown]> = [
    ['MCP_GATEWAY_PORT', '9000', 'port', 9000],
    ['MCP_GATEWAY_PORT', ' 9001 ', 'port', 9001],
    ['MCP_GATEWAY_HOST', '0.0.0.0', 'host', '0.0.0.0'],
    ['MCP_GATEWAY_LOG_LEVEL', 'debug', 'logLevel', 'debug'],
    ['MCP_GATEWAY_ALLOWED_HOSTS', 'a.example, B.example,,', 'allowedHosts', ['a.example', 'b.example']],
    ['MCP_GATEWAY_ALLOWED_ORIGINS', 'https://app.example', 'allowedOrigins', ['https://app.example']],
    ['MCP_GATEWAY_MAX_BODY_BYTES', '2048', 'maxBodyBytes', 2048],
    ['MCP_GATEWAY_SHUTDOWN_TIMEOUT_MS', '500', 'shutdownTimeoutMs', 500],
    ['MCP_GATEWAY_KEEP_ALIVE_MS', '1000', 'keepAliveMs', 1000],
    ['MCP_GATEWAY_STATE_SECRET', SECRET, 'stateSecret', SECRET],
    ['MCP_GATEWAY_STATE_TTL_MS', '5000', 'stateTtlMs', 5000],
    ['MCP_GATEWAY_PORT', '', 'port', 1111],
  ]
  for (const [name, value, key, expected] of cases) {
    const config = loadConfig({ argv: ['--config', file], env: { [name]: value } }) as unknown as Record<string, unknown>
    t.same(config[key], expected, `${name}=${JSON.stringify(value)} → ${key} ${JSON.stringify(expected)}`)
  }
})

t.test('failures → ConfigError listing every problem', async (t) => {
  const path = writeConfigs(t, { 'bad.json': '{ port: 1', 'empty.json': { backends: [] }, 'invalid.json': { port: -1, bogus: true } })
  const missing = path('nope.json')
  const cases: Array<[string, { argv: string[]; env: Record<string, string> }, RegExp[]]> = [
    ['file missing', { argv: ['--config', missing], env: {} }, [/cannot be read \(ENOENT\)/]],
    ['file not JSON', { argv: ['--config', path('bad.json')], env: {} }, [/not valid JSON/]],
    ['MCP_GATEWAY_PORT=abc', { argv: ['--config', path('empty.json')], env: { MCP_GATEWAY_PORT: 'abc' } }, [/^port: must be an integer/]],
    ['two invalid settings', { argv: ['--config', path('invalid.json')], env: {} }, [/^config\.bogus: unknown setting$/, /^port: /]],
  ]
  for (const [name, options, expected] of cases) {
    try {
      loadConfig(options)
      t.fail(`${name} → throws`)
    } catch (err) {
      t.type(err, ConfigError, `${name} → ConfigError`)
      const errors = (err as ConfigError).errors
      t.equal(errors.length, expected.length, `${name} → ${expected.length} error(s)`)
      expected.forEach((pattern, i) => {
        t.match(errors[i], pattern, `${name} → ${pattern.source}`)
        t.ok((err as Error).message.includes(errors[i]), `${name} → message lists "${errors[i]}"`)
      })
    }
  }
})

t.test('MCP_GATEWAY_STATE_SECRET_FILE → the secret read from that file (final line end dropped)', async (t) => {
  const path = writeConfigs(t, { 'gateway.json': { backends: [BACKEND] }, 'secret': `${SECRET}\n`, 'crlf': `${SECRET}\r\n`, 'short': 'tiny' })
  const load = (env: Record<string, string>) => loadConfig({ argv: ['--config', path('gateway.json')], env })
  t.equal(load({ MCP_GATEWAY_STATE_SECRET_FILE: path('secret') }).stateSecret, SECRET, 'LF dropped')
  t.equal(load({ MCP_GATEWAY_STATE_SECRET_FILE: path('crlf') }).stateSecret, SECRET, 'CRLF dropped')
  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['missing file', { MCP_GATEWAY_STATE_SECRET_FILE: path('nope') }, /^MCP_GATEWAY_STATE_SECRET_FILE: file .*nope cannot be read \(ENOENT\)$/],
    ['both ways', { MCP_GATEWAY_STATE_SECRET: SECRET, MCP_GATEWAY_STATE_SECRET_FILE: path('secret') }, /^MCP_GATEWAY_STATE_SECRET and MCP_GATEWAY_STATE_SECRET_FILE are both set/],
    ['a short secret in the file', { MCP_GATEWAY_STATE_SECRET_FILE: path('short') }, /^stateSecret: must be at least 32 bytes, got 4$/],
  ]
  for (const [name, env, pattern] of refusals) {
    const err = t.throws(() => load(env), ConfigError, `${name} → ConfigError`) as unknown as ConfigError
    t.match(err.errors, [pattern], `${name} → ${pattern.source}`)
    t.notMatch(err.message, /tiny|s3cret/, `${name} → the secret is not in the message`)
  }
})

t.test('loaded config → deeply frozen', async (t) => {
  const file = writeConfigs(t, { 'gateway.json': { backends: [{ ...BACKEND, headers: { a: 'b' } }] } })('gateway.json')
  const config = loadConfig({ argv: ['--config', file], env: {} })
  t.ok(Object.isFrozen(config), 'config frozen')
  t.ok(Object.isFrozen(config.backends), 'backends list frozen')
  t.ok(Object.isFrozen(config.backends[0]), 'a backend frozen')
  t.ok(Object.isFrozen(config.allowedHosts), 'allowedHosts frozen')
  t.throws(() => {
    (config as { port: number }).port = 1
  }, TypeError, 'assignment → TypeError')
})

// .env.example lines: NAME=value (the value is the default; empty means "not set").
function envExample(): Map<string, string> {
  const text = readFileSync(ENV_EXAMPLE, 'utf8')
  return new Map([...text.matchAll(/^\s*#?\s*(MCP_GATEWAY_[A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2].trim()]))
}

t.test('every variable in ENV_SETTINGS (and the config file one) is listed in .env.example, and nothing else', async (t) => {
  t.same([...envExample().keys()].sort(), [CONFIG_FILE_ENV, ...ENV_SETTINGS.keys()].sort())
})

t.test('.env.example → each variable set to the schema default', async (t) => {
  const listed = envExample()
  t.equal(listed.get(CONFIG_FILE_ENV), '', `${CONFIG_FILE_ENV} → empty (the embedded default)`)
  for (const [name, { setting }] of ENV_SETTINGS) {
    const fallback = setting.default
    const expected = fallback === undefined ? '' : Array.isArray(fallback) ? fallback.join(',') : String(fallback)
    t.equal(listed.get(name), expected, `${name} → ${JSON.stringify(expected)}`)
  }
})

t.test('ENV_SETTINGS → the documented variable names, each bound to its setting', async (t) => {
  const expected: Array<[string, string]> = [
    ['MCP_GATEWAY_HOST', 'host'], ['MCP_GATEWAY_PORT', 'port'], ['MCP_GATEWAY_LOG_LEVEL', 'logLevel'],
    ['MCP_GATEWAY_ALLOWED_HOSTS', 'allowedHosts'], ['MCP_GATEWAY_ALLOWED_ORIGINS', 'allowedOrigins'],
    ['MCP_GATEWAY_MAX_BODY_BYTES', 'maxBodyBytes'], ['MCP_GATEWAY_SHUTDOWN_TIMEOUT_MS', 'shutdownTimeoutMs'],
    ['MCP_GATEWAY_KEEP_ALIVE_MS', 'keepAliveMs'], ['MCP_GATEWAY_STATE_SECRET', 'stateSecret'], ['MCP_GATEWAY_STATE_SECRET_FILE', 'stateSecret'],
    ['MCP_GATEWAY_STATE_TTL_MS', 'stateTtlMs'], ['MCP_GATEWAY_REDIS_URL', 'redisUrl'],
    ['MCP_GATEWAY_LIMITS_CALLS_PER_CLIENT', 'limits.callsPerClient'],
    ['MCP_GATEWAY_LIMITS_QUEUED_CALLS', 'limits.queuedCalls'], ['MCP_GATEWAY_LIMITS_QUEUE_TIMEOUT_MS', 'limits.queueTimeoutMs'],
    ['MCP_GATEWAY_LIMITS_REPLY_BYTES_IN_FLIGHT', 'limits.replyBytesInFlight'],
    ['MCP_GATEWAY_LIMITS_LIST_REFRESH_MS', 'limits.listRefreshMs'],
    ['MCP_GATEWAY_LIMITS_BODY_IDLE_MS', 'limits.bodyIdleMs'], ['MCP_GATEWAY_LIMITS_BODY_TIMEOUT_MS', 'limits.bodyTimeoutMs'],
    ['MCP_GATEWAY_LIMITS_CONNECTIONS', 'limits.connections'], ['MCP_GATEWAY_LIMITS_STREAMS_PER_CLIENT', 'limits.streamsPerClient'],
    ['MCP_GATEWAY_LIMITS_STREAMS', 'limits.streams'], ['MCP_GATEWAY_LIMITS_STREAM_QUEUE_BYTES', 'limits.streamQueueBytes'],
    ['MCP_GATEWAY_AUTH_RESOURCE', 'auth.resource'], ['MCP_GATEWAY_AUTH_SERVERS', 'auth.authorizationServers'],
    ['MCP_GATEWAY_AUTH_ISSUER', 'auth.issuer'], ['MCP_GATEWAY_AUTH_JWKS_URI', 'auth.jwksUri'], ['MCP_GATEWAY_AUTH_REQUIRED_SCOPES', 'auth.requiredScopes'],
    ['MCP_GATEWAY_TOOL_LABEL_LIMIT', 'toolLabelLimit'], ['MCP_GATEWAY_MIN_BACKENDS_UP', 'minBackendsUp'], ['MCP_GATEWAY_DRAIN_DELAY_MS', 'drainDelayMs'],
    ['MCP_GATEWAY_ADMIN_TOKEN', 'adminToken'], ['MCP_GATEWAY_ADMIN_TOKEN_FILE', 'adminToken'],
    ['MCP_GATEWAY_TLS_CERT_FILE', 'tls.certFile'], ['MCP_GATEWAY_TLS_KEY_FILE', 'tls.keyFile'], ['MCP_GATEWAY_TLS_CA_FILE', 'tls.caFile'],
    ['MCP_GATEWAY_HTTP2', 'http2'],
  ]
  t.same([...ENV_SETTINGS].map(([name, { path }]) => [name, path.join('.')]), expected)
})

// Settings others will add (limits, tls …) may be nested: their variables reach the nested key.
t.test('applyEnvOverrides with a nested setting', async (t) => {
  const table = envSettingsOf({
    limits: { type: 'object', doc: 'limits', settings: { maxCalls: { type: 'integer', default: 1, env: 'MCP_GATEWAY_LIMITS_MAX_CALLS', doc: 'calls' } } },
    tls: { type: 'object', doc: 'tls', settings: { enabled: { type: 'boolean', default: false, env: 'MCP_GATEWAY_TLS_ENABLED', doc: 'on' } } },
  })
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, Record<string, unknown>]> = [
    ['nested key absent in the file', {}, { MCP_GATEWAY_LIMITS_MAX_CALLS: '7' }, { limits: { maxCalls: 7 } }],
    ['nested key beside others', { limits: { other: 1 } }, { MCP_GATEWAY_LIMITS_MAX_CALLS: '7' }, { limits: { other: 1, maxCalls: 7 } }],
    ['boolean "true"', {}, { MCP_GATEWAY_TLS_ENABLED: 'true' }, { tls: { enabled: true } }],
    ['boolean "yes" (left for the validator to refuse)', {}, { MCP_GATEWAY_TLS_ENABLED: 'yes' }, { tls: { enabled: 'yes' } }],
    ['parent not an object (left for the validator to refuse)', { limits: 5 }, { MCP_GATEWAY_LIMITS_MAX_CALLS: '7' }, { limits: 5 }],
    ['empty value = not set', {}, { MCP_GATEWAY_LIMITS_MAX_CALLS: '' }, {}],
  ]
  for (const [name, raw, env, expected] of cases) {
    applyEnvOverrides(raw, env, table)
    t.same(raw, expected, `${name} → ${JSON.stringify(expected)}`)
  }
})
