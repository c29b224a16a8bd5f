// THE configuration schema (README "Configuration"): every setting declared once, with its type,
// default, limits, environment variable and a one-line doc. The config types (types.ts), the
// defaults, the accepted keys and the environment table (loader.ts) all derive from it. Adding a
// setting is one entry here (a nested object is an `object` entry with its own settings).
// Validation: defaults filled in, every error listed, unknown keys refused. Pure.
import type { GatewayConfig } from './types.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { LOOPBACK_HOSTS } from '../protocol/origin.ts'
import { readSettings } from './read-settings.ts'
import { MIN_SECRET_BYTES } from '../routing/seal.ts'
import type { Settings } from './setting-types.ts'
import { AUTH_GATEWAY_SETTINGS, BACKEND_AUTH_SETTING } from '../auth/auth-schema.ts'
import { checkAuthSettings } from '../auth/auth-config.ts'
import { BACKEND_TLS_SETTINGS, checkTlsSettings, FRONT_TLS_SETTINGS } from './tls-settings.ts'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const BACKEND_COMMON = {
  name: { type: 'string', pattern: /^[A-Za-z0-9_.-]{1,64}$/, doc: 'unique backend name' },
  namespace: { type: 'string', default: '', pattern: /^[A-Za-z0-9_.-]{0,64}$/, doc: 'prefix for its tool and prompt names; "" when names cannot collide' },
  timeoutMs: { type: 'integer', default: 60_000, min: 1, doc: 'per-call timeout toward this backend (CANCEL-8)' },
  required: { type: 'boolean', optional: true, doc: 'default true: /readyz is 503 while this backend is down (unless minBackendsUp is set)' },
  // README "Tracing".
  forwardBaggage: { type: 'boolean', optional: true, doc: 'pass the client\'s W3C `baggage` on to this backend (TRACE-2: only to backends trusted with it)' },
} as const satisfies Settings

const HTTP_BACKEND = {
  ...BACKEND_COMMON,
  url: { type: 'string', pattern: /^https?:\/\//, patternProblem: 'must be an http:// or https:// URL', doc: 'its MCP endpoint' },
  headers: { type: 'stringMap', doc: 'sent to this backend only (its own credentials; never the client\'s, AUTH-8)' },
  auth: BACKEND_AUTH_SETTING,
  connections: { type: 'integer', default: 64, min: 1, max: 10_000, doc: 'calls in flight to this backend at once (its undici pool, plus a few connections for probes and list fetches); more wait in the fair queue' },
  maxReplyBytes: {
    type: 'integer', default: 16 * 1024 * 1024, min: 1024,
    doc: 'largest reply body accepted (a larger one is a bad reply); sixteen such replies fill the default limits.replyBytesInFlight',
  },
  downAfterFailures: {
    type: 'integer', default: 3, min: 1, max: 1000,
    doc: 'down after this many different clients\' requests failed to connect in a row (one client counts once; a failed probe is down at once)',
  },
  ...BACKEND_TLS_SETTINGS,
} as const satisfies Settings

const STDIO_BACKEND = {
  ...BACKEND_COMMON,
  command: { type: 'string', doc: 'the program to run (no shell)' },
  args: { type: 'stringList', default: [], doc: 'its arguments' },
  env: { type: 'stringMap', doc: 'the child\'s whole environment: nothing of the gateway\'s own leaks in unless listed' },
  cwd: { type: 'string', optional: true, doc: 'the child\'s working directory' },
  envFiles: { type: 'stringMap', doc: 'variables of the child\'s environment read from files at each start (its secrets, kept out of this file)' },
  user: {
    type: 'string', optional: true, pattern: /^(?:\d+|[A-Za-z_][A-Za-z0-9_.-]{0,31})$/, patternProblem: 'must be a user name or a numeric uid',
    doc: 'run the child as this user (the gateway must run as root); its group too unless `group` says otherwise',
  },
  group: {
    type: 'string', optional: true, pattern: /^(?:\d+|[A-Za-z_][A-Za-z0-9_.-]{0,31})$/, patternProblem: 'must be a group name or a numeric gid',
    doc: 'run the child with this group (the gateway must run as root)',
  },
  maxLineBytes: { type: 'integer', default: 4 * 1024 * 1024, min: 1024, doc: 'longest stdout line accepted (longer ones are skipped)' },
  concurrency: { type: 'integer', default: 64, min: 1, max: 10_000, doc: 'calls in flight to the child at once; more wait in the fair queue (README "Limits")' },
} as const satisfies Settings

// Names from two backends under one non-empty namespace could collide: refused at start. Both
// entries are named (positions among the backends that were read).
function checkBackends(backends: ReadonlyArray<Record<string, unknown>>, report: (problem: string) => void): void {
  const names = new Map<unknown, number>()
  const namespaces = new Map<unknown, number>()
  backends.forEach(({ name, namespace }, i) => {
    const first = names.get(name)
    if (typeof name === 'string' && first !== undefined) report(`duplicate backend name "${name}" in entries ${first} and ${i}`)
    const other = namespaces.get(namespace)
    if (typeof namespace === 'string' && namespace !== '' && other !== undefined) report(`duplicate namespace "${namespace}" in entries ${other} and ${i}`)
    if (first === undefined) names.set(name, i)
    if (other === undefined) namespaces.set(namespace, i)
  })
}

// What one client may cost the others (README "Limits"): each limit one entry, with its default.
const LIMIT_SETTINGS = {
  callsPerClient: {
    type: 'integer', default: 16, min: 1, max: 10_000, env: 'MCP_GATEWAY_LIMITS_CALLS_PER_CLIENT',
    doc: 'calls one client may have in flight to one backend; more wait in that client\'s own queue, served round robin with the others',
  },
  queuedCalls: {
    type: 'integer', default: 256, min: 0, max: 1_000_000, env: 'MCP_GATEWAY_LIMITS_QUEUED_CALLS',
    doc: 'calls waiting for one backend, all clients together; when full, the client with the longest queue loses its newest call',
  },
  queueTimeoutMs: {
    type: 'integer', default: 10_000, min: 1, max: 3_600_000, env: 'MCP_GATEWAY_LIMITS_QUEUE_TIMEOUT_MS',
    doc: 'longest wait for a free slot; the call\'s own timeoutMs starts when it is sent',
  },
  replyBytesInFlight: {
    type: 'integer', default: 256 * 1024 * 1024, min: 1024 * 1024, env: 'MCP_GATEWAY_LIMITS_REPLY_BYTES_IN_FLIGHT',
    doc: 'bytes of backend replies the gateway buffers at once, all backends together; a reply that would pass it fails its call (-32603)',
  },
  listRefreshMs: {
    type: 'integer', default: 5_000, max: 3_600_000, env: 'MCP_GATEWAY_LIMITS_LIST_REFRESH_MS',
    doc: 'an unknown tool or prompt name refetches that backend\'s list at most this often (names that missed are remembered per list)',
  },
  // The front door's limits (issue 11: one client must not slow, blind or break the others).
  bodyIdleMs: {
    type: 'integer', default: 30_000, min: 10, max: 3_600_000, env: 'MCP_GATEWAY_LIMITS_BODY_IDLE_MS',
    doc: 'longest pause between two chunks of a request body (408 after it)',
  },
  bodyTimeoutMs: {
    type: 'integer', default: 60_000, min: 10, max: 3_600_000, env: 'MCP_GATEWAY_LIMITS_BODY_TIMEOUT_MS',
    doc: 'longest time to receive a whole request body (408 after it)',
  },
  connections: {
    type: 'integer', default: 4_096, min: 1, max: 1_000_000, env: 'MCP_GATEWAY_LIMITS_CONNECTIONS',
    doc: 'client connections open at once, all clients together; a further one gets 503 with Retry-After and is closed',
  },
  streamsPerClient: {
    type: 'integer', default: 32, min: 1, max: 100_000, env: 'MCP_GATEWAY_LIMITS_STREAMS_PER_CLIENT',
    doc: 'long-lived streams (subscriptions/listen, legacy GET) one client may hold open; a further one gets 429 with Retry-After',
  },
  streams: {
    type: 'integer', default: 1_024, min: 1, max: 1_000_000, env: 'MCP_GATEWAY_LIMITS_STREAMS',
    doc: 'long-lived streams open at once, all clients together; a further one gets 503 with Retry-After',
  },
  streamQueueBytes: {
    type: 'integer', default: 4 * 1024 * 1024, min: 1024, env: 'MCP_GATEWAY_LIMITS_STREAM_QUEUE_BYTES',
    doc: 'bytes of SSE messages waiting for a client that does not read its stream; past it the stream is cut and its upstream call cancelled',
  },
} as const satisfies Settings

export const GATEWAY_SETTINGS = {
  host: { type: 'string', default: '127.0.0.1', env: 'MCP_GATEWAY_HOST', doc: 'listen address (0.0.0.0 in a container)' },
  port: { type: 'integer', default: 8080, max: 65_535, env: 'MCP_GATEWAY_PORT', doc: 'listen port (0 = any free port)' },
  logLevel: { type: 'string', default: 'info', oneOf: LOG_LEVELS, env: 'MCP_GATEWAY_LOG_LEVEL', doc: 'pino log level' },
  allowedHosts: {
    type: 'stringList', default: LOOPBACK_HOSTS, lowerCase: true, env: 'MCP_GATEWAY_ALLOWED_HOSTS',
    doc: 'Host header allow-list (DNS rebinding, SEC-1); host names with an optional :port, * allows any',
  },
  allowedOrigins: {
    type: 'stringList', default: LOOPBACK_HOSTS, lowerCase: true, env: 'MCP_GATEWAY_ALLOWED_ORIGINS',
    doc: 'Origin allow-list (SEC-2): full origins or bare host names; a request without Origin is allowed',
  },
  maxBodyBytes: { type: 'integer', default: 4 * 1024 * 1024, min: 1024, env: 'MCP_GATEWAY_MAX_BODY_BYTES', doc: 'largest request body (413 above)' },
  shutdownTimeoutMs: {
    type: 'integer', default: 10_000, env: 'MCP_GATEWAY_SHUTDOWN_TIMEOUT_MS', doc: 'on SIGTERM, how long in-flight requests may finish',
  },
  keepAliveMs: { type: 'integer', default: 15_000, min: 100, env: 'MCP_GATEWAY_KEEP_ALIVE_MS', doc: 'keep-alive comment interval on long-lived SSE streams (SSE-5)' },
  stateSecret: {
    type: 'string', default: '', env: 'MCP_GATEWAY_STATE_SECRET', envFile: true, minBytes: MIN_SECRET_BYTES, secret: true,
    doc: `secret sealing requestState and cursors, shared by every replica, at least ${MIN_SECRET_BYTES} bytes; "" = random per process (with a warning)`,
  },
  stateTtlMs: { type: 'integer', default: 600_000, min: 1000, env: 'MCP_GATEWAY_STATE_TTL_MS', doc: 'lifetime of sealed requestState and cursors' },
  namespaceSeparator: { type: 'string', default: '__', pattern: /^[A-Za-z0-9_.-]{1,4}$/, doc: 'gateway name = namespace + separator + name' },
  listPageSize: { type: 'integer', default: 500, min: 1, max: 100_000, doc: 'items per page of an aggregated list (pages span backends)' },
  listPollMs: {
    type: 'integer', default: 30_000, min: 10, doc: 'how often the lists of a backend that answers subscriptions/listen without a stream are re-read (its list changes synthesized)',
  },
  legacyClients: {
    type: 'boolean', default: true, doc: 'serve 2025-11-25 clients (initialize, Mcp-Session-Id, GET/DELETE) on the same endpoint (LEGACY-1); false: modern only (VER-7)',
  },
  sessionTtlMs: { type: 'integer', default: 86_400_000, min: 1000, doc: 'lifetime of a legacy session id (LEGACY-4); after it the client gets 404 and re-initializes' },
  // Below the MRTR bridge hold (60 s): a bridged legacy backend is cancelled with a clear error first.
  clientAnswerTimeoutMs: {
    type: 'integer', default: 55_000, min: 1, doc: 'how long a legacy client may take to answer a server-initiated request (elicitation, sampling, roots, G10)',
  },
  // Replicas (README "Running N replicas"): the little state several replicas must share.
  redisUrl: {
    type: 'string', default: '', env: 'MCP_GATEWAY_REDIS_URL', pattern: /^(?:$|rediss?:\/\/)/, patternProblem: 'must be a redis:// or rediss:// URL',
    secret: true,
    doc: 'Redis shared by the replicas behind one load balancer (hand-offs, legacy session state, single-use requestState, rate limits); "" = one replica, all in memory',
  },
  limits: { type: 'object', settings: LIMIT_SETTINGS, doc: 'what one client may cost the others (README "Limits")' },
  backends: {
    type: 'list',
    of: { type: 'variant', key: 'transport', variants: { http: HTTP_BACKEND, stdio: STDIO_BACKEND }, doc: 'one MCP server behind the gateway' },
    check: checkBackends,
    doc: 'the MCP servers behind the gateway, in the order aggregation follows',
  },
  ...AUTH_GATEWAY_SETTINGS,
  // Operations (README "Operations"): metrics, readiness, drain.
  toolLabelLimit: {
    type: 'integer', default: 500, min: 1, max: 100_000, env: 'MCP_GATEWAY_TOOL_LABEL_LIMIT',
    doc: 'distinct (backend, tool) label pairs of mcp_gateway_tool_call_duration_seconds; past it new tools are counted as "other"',
  },
  minBackendsUp: {
    type: 'integer', optional: true, min: 0, env: 'MCP_GATEWAY_MIN_BACKENDS_UP',
    doc: '/readyz is 200 when at least this many backends are up; unset: when every backend with required: true is up',
  },
  drainDelayMs: {
    type: 'integer', default: 5_000, max: 600_000, env: 'MCP_GATEWAY_DRAIN_DELAY_MS',
    doc: 'on SIGTERM, how long /readyz answers 503 while the gateway still serves (the load balancer moves away), before it stops accepting',
  },
  // README "Reload without restart".
  adminToken: {
    type: 'string', default: '', env: 'MCP_GATEWAY_ADMIN_TOKEN', envFile: true, minBytes: 16, secret: true,
    doc: 'bearer token of POST /admin/reload (re-reads the config file, as SIGHUP does); "" = no admin endpoint',
  },
  ...FRONT_TLS_SETTINGS,
} as const satisfies Settings

// A floor no configuration can reach would keep /readyz at 503 forever.
function checkMinBackendsUp(config: Partial<GatewayConfig>, report: (path: string, problem: string) => void): void {
  const count = config.backends?.length ?? 0
  if (config.minBackendsUp !== undefined && config.minBackendsUp > count) report('minBackendsUp', `must be at most the number of backends (${count}), got ${config.minBackendsUp}`)
}

// SEC-2: "*" for origins lets any web page drive the gateway from a visitor's browser (CORS reflects
// every origin); only with authentication on, where such a page still needs the visitor's token.
function checkOpenOrigins(config: Partial<GatewayConfig>, report: (path: string, problem: string) => void): void {
  if (config.allowedOrigins?.includes('*') && config.auth === undefined) {
    report('allowedOrigins', '"*" lets any web page call the gateway from a visitor\'s browser; it is accepted only with authentication on (set `auth`), else list the origins')
  }
}

export type ConfigResult = { ok: true; config: GatewayConfig } | { ok: false; errors: string[] }

export function validateConfig(raw: unknown): ConfigResult {
  if (!isJsonObject(raw)) return { ok: false, errors: ['config: must be a JSON object'] }
  const errors: string[] = []
  const report = (path: string, problem: string): void => void errors.push(`${path}: ${problem}`)
  const config = readSettings(GATEWAY_SETTINGS, raw, { path: '', report })
  // Rules across settings (derived defaults, auth needed by policy …), listed with the rest.
  checkAuthSettings(config as Partial<GatewayConfig>, report)
  checkMinBackendsUp(config as Partial<GatewayConfig>, report)
  checkTlsSettings(config as Pick<GatewayConfig, 'tls' | 'http2'>, report)
  checkOpenOrigins(config as Partial<GatewayConfig>, report)
  // The reader follows GATEWAY_SETTINGS, which GatewayConfig is derived from (a unit test checks).
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config: config as GatewayConfig }
}

// What `{}` validates to: every top-level default.
export const DEFAULTS: Readonly<GatewayConfig> = Object.freeze((validateConfig({}) as { config: GatewayConfig }).config)
