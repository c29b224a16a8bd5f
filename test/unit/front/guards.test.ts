// The front guards, one table: each row is a request's method and headers and the refusal the
// ordered list must answer (or none). Plus the runner's contract: order, exactly one callback,
// asynchronous guards resumed in order, and no promise at all when every guard is synchronous.
import t from 'tap'
import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError, type ErrorCode } from '../../../src/errors.ts'
import {
  bodySizeGuard, createFrontGuards, hostGuard, isJsonMediaType, mediaTypeGuard, originGuard, runGuards,
  type Guard, type GuardRequest,
} from '../../../src/front/guards.ts'

const MAX = 1_000
const guards = createFrontGuards({ allowedHosts: ['localhost', '127.0.0.1', 'api.example.com:8443'], allowedOrigins: ['http://localhost:5173', 'app.example.com'], maxBodyBytes: MAX })

const JSON_POST = { host: 'localhost:3000', 'content-type': 'application/json', 'content-length': '10' }

interface Row {
  name: string
  method: string
  headers: IncomingHttpHeaders
  url?: string
  refusal?: ErrorCode
}

const rows: Row[] = [
  { name: 'POST, JSON, allowed Host, no Origin', method: 'POST', headers: JSON_POST },
  { name: 'Host with port in the allow-list by name', method: 'POST', headers: { ...JSON_POST, host: '127.0.0.1:1' } },
  { name: 'Host allowed only as host:port, right port', method: 'POST', headers: { ...JSON_POST, host: 'api.example.com:8443' } },
  { name: 'Host allowed only as host:port, other port', method: 'POST', headers: { ...JSON_POST, host: 'api.example.com:443' }, refusal: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' },
  { name: 'foreign Host (SEC-1)', method: 'POST', headers: { ...JSON_POST, host: 'evil.example' }, refusal: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' },
  { name: 'no Host at all (RFC 9112: 400)', method: 'POST', headers: { 'content-type': 'application/json' }, refusal: 'MCP_GATEWAY_HTTP_HOST_INVALID' },
  { name: 'userinfo in Host', method: 'POST', headers: { ...JSON_POST, host: 'localhost:80@evil.example' }, refusal: 'MCP_GATEWAY_HTTP_HOST_INVALID' },
  { name: 'junk after an IP literal', method: 'POST', headers: { ...JSON_POST, host: '[::1]evil.example' }, refusal: 'MCP_GATEWAY_HTTP_HOST_INVALID' },
  { name: 'two Host headers (joined by the server)', method: 'POST', headers: { ...JSON_POST, host: 'localhost, evil.example' }, refusal: 'MCP_GATEWAY_HTTP_HOST_INVALID' },
  { name: 'absolute-form target: its authority wins over Host', method: 'POST', url: 'http://evil.example/mcp', headers: JSON_POST, refusal: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' },
  { name: 'absolute-form target with an allowed authority', method: 'POST', url: 'http://127.0.0.1:9/mcp', headers: { ...JSON_POST, host: 'evil.example' } },
  { name: 'allowed Origin (full origin)', method: 'POST', headers: { ...JSON_POST, origin: 'http://localhost:5173' } },
  { name: 'allowed Origin (bare host entry, any scheme/port)', method: 'POST', headers: { ...JSON_POST, origin: 'https://app.example.com:9000' } },
  { name: 'foreign Origin (SEC-2)', method: 'POST', headers: { ...JSON_POST, origin: 'https://evil.example' }, refusal: 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN' },
  { name: 'Origin "null"', method: 'POST', headers: { ...JSON_POST, origin: 'null' }, refusal: 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN' },
  { name: 'foreign Host and foreign Origin → Host first', method: 'POST', headers: { ...JSON_POST, host: 'evil.example', origin: 'https://evil.example' }, refusal: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' },
  { name: 'foreign Origin on GET → refused before the method', method: 'GET', headers: { host: 'localhost', origin: 'https://evil.example' }, refusal: 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN' },
  { name: 'JSON with charset', method: 'POST', headers: { ...JSON_POST, 'content-type': 'application/json; charset=utf-8' } },
  { name: 'JSON in capitals, space before the parameter', method: 'POST', headers: { ...JSON_POST, 'content-type': 'Application/JSON ; charset=UTF-8' } },
  { name: 'application/jsonl (E32)', method: 'POST', headers: { ...JSON_POST, 'content-type': 'application/jsonl' }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
  { name: 'application/json-seq', method: 'POST', headers: { ...JSON_POST, 'content-type': 'application/json-seq' }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
  { name: 'text/plain (no preflight from a browser)', method: 'POST', headers: { ...JSON_POST, 'content-type': 'text/plain' }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
  { name: 'form-urlencoded', method: 'POST', headers: { ...JSON_POST, 'content-type': 'application/x-www-form-urlencoded' }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
  { name: 'POST without Content-Type', method: 'POST', headers: { host: 'localhost' }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
  { name: 'GET without Content-Type (media type is POST only)', method: 'GET', headers: { host: 'localhost' } },
  { name: 'DELETE with text/plain (media type is POST only)', method: 'DELETE', headers: { host: 'localhost', 'content-type': 'text/plain' } },
  { name: 'declared size at the limit', method: 'POST', headers: { ...JSON_POST, 'content-length': String(MAX) } },
  { name: 'declared size over the limit → 413 before reading', method: 'POST', headers: { ...JSON_POST, 'content-length': String(MAX + 1) }, refusal: 'MCP_GATEWAY_HTTP_BODY_TOO_LARGE' },
  { name: 'no Content-Length (chunked: bounded while read)', method: 'POST', headers: { host: 'localhost', 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
  { name: 'non-numeric Content-Length (left to the HTTP layer)', method: 'POST', headers: { ...JSON_POST, 'content-length': 'abc' } },
  { name: 'wrong type and too large → media type first', method: 'POST', headers: { ...JSON_POST, 'content-type': 'text/plain', 'content-length': String(MAX + 1) }, refusal: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE' },
]

function run(list: readonly Guard[], request: GuardRequest): Promise<{ error: Error | undefined; calls: number }> {
  return new Promise((resolve) => {
    let calls = 0
    let error: Error | undefined
    runGuards(list, request, (err) => {
      calls++
      error = err
      // A second call would show up here, one tick later.
      setImmediate(() => resolve({ error, calls }))
    })
  })
}

for (const row of rows) {
  t.test(`${row.name} (${row.method}) → ${row.refusal ?? 'passes'}`, async (t) => {
    const { error, calls } = await run(guards, { method: row.method, headers: row.headers, url: row.url ?? '/mcp' })
    t.equal(calls, 1, 'done called once')
    if (row.refusal === undefined) t.equal(error, undefined, 'no refusal')
    else {
      t.type(error, GatewayError)
      t.equal((error as GatewayError).code, row.refusal)
    }
  })
}

t.test('each guard alone: undefined or a GatewayError, synchronously', async (t) => {
  const request = { method: 'POST', headers: JSON_POST }
  t.equal(hostGuard(['localhost'])(request), undefined)
  t.match(hostGuard(['other'])(request), { code: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN', httpStatus: 403 })
  t.equal(originGuard([])(request), undefined, 'no Origin passes any list')
  t.match(originGuard([])({ method: 'POST', headers: { origin: 'http://localhost:5173' } }), { code: 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN', httpStatus: 403 })
  t.equal(mediaTypeGuard(request), undefined)
  t.match(mediaTypeGuard({ method: 'POST', headers: { 'content-type': 'application/jsonl' } }), { code: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 })
  t.equal(bodySizeGuard(10)(request), undefined)
  t.match(bodySizeGuard(9)(request), { code: 'MCP_GATEWAY_HTTP_BODY_TOO_LARGE', httpStatus: 413 })
})

t.test('hostGuard → request.host (h2 :authority, a trusted X-Forwarded-Host) before the Host header', async (t) => {
  const cases: Array<[string, { host?: string; headers: Record<string, string> }, boolean]> = [
    ['h2: :authority only', { host: 'localhost:8443', headers: { ':authority': 'localhost:8443' } }, true],
    ['h2: :authority not allowed', { host: 'evil.example', headers: { ':authority': 'evil.example' } }, false],
    ['proxy: forwarded host allowed, Host internal', { host: 'localhost', headers: { host: 'internal:8080' } }, true],
    ['proxy: forwarded host refused, Host allowed', { host: 'evil.example', headers: { host: 'localhost' } }, false],
    ['empty host → the Host header', { host: '', headers: { host: 'localhost' } }, true],
    ['neither', { headers: {} }, false],
  ]
  for (const [name, request, passes] of cases) {
    const verdict = hostGuard(['localhost'])({ method: 'POST', ...request })
    t.equal(verdict === undefined, passes, `${name} → ${passes ? 'passes' : '403'}`)
  }
})

t.test('isJsonMediaType', async (t) => {
  const cases: Array<[string | undefined, boolean]> = [
    ['application/json', true], ['application/json;charset=utf-8', true], [' application/json ', true], ['APPLICATION/JSON', true],
    ['application/jsonl', false], ['application/json5', false], ['application/jsonx; charset=utf-8', false], ['application/', false],
    ['json', false], ['', false], [undefined, false], ['application/problem+json', false],
  ]
  for (const [value, expected] of cases) t.equal(isJsonMediaType(value), expected, `${JSON.stringify(value)} → ${expected}`)
})

t.test('the list order is Host, Origin, media type, size', async (t) => {
  const seen: string[] = []
  const spy = (name: string): Guard => () => void seen.push(name)
  runGuards([spy('host'), spy('origin'), spy('media'), spy('size')], { method: 'POST', headers: {} }, () => seen.push('done'))
  t.same(seen, ['host', 'origin', 'media', 'size', 'done'], 'synchronous guards: all run, then done, in the same tick')
  t.equal(guards.length, 4)
  t.ok(Object.isFrozen(guards), 'the list is fixed once built')
})

t.test('a refusal stops the list: later guards never run', async (t) => {
  const seen: string[] = []
  const refuse: Guard = () => new GatewayError('MCP_GATEWAY_HTTP_HOST_FORBIDDEN')
  const later: Guard = () => void seen.push('later')
  const { error, calls } = await run([refuse, later], { method: 'POST', headers: {} })
  t.equal(calls, 1)
  t.match(error, { code: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' })
  t.same(seen, [])
})

t.test('an asynchronous guard (token verification) suspends the list and resumes after it', async (t) => {
  const seen: string[] = []
  const verify: Guard = async (request) => {
    seen.push('verify')
    await new Promise((resolve) => setImmediate(resolve)) // settles on a later turn, like a token check
    return request.headers.authorization === 'Bearer good' ? undefined : new GatewayError('MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN')
  }
  const after: Guard = () => void seen.push('after')
  const ok = await run([verify, after], { method: 'POST', headers: { authorization: 'Bearer good' } })
  t.equal(ok.error, undefined)
  t.equal(ok.calls, 1)
  t.same(seen, ['verify', 'after'], 'the next guard ran after the promise settled')
  seen.length = 0
  const refused = await run([verify, after], { method: 'POST', headers: {} })
  t.match(refused.error, { code: 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN' })
  t.same(seen, ['verify'], 'a refusal from an async guard stops the list too')
})

t.test('a guard that throws or rejects → done(err) once (the error handler answers 500)', async (t) => {
  const throws: Guard = () => {
    throw new TypeError('bug')
  }
  const rejects: Guard = () => Promise.reject(new TypeError('async bug'))
  for (const [name, guard] of [['throws', throws], ['rejects', rejects]] as const) {
    const { error, calls } = await run([guard], { method: 'POST', headers: {} })
    t.equal(calls, 1, `${name}: done once`)
    t.type(error, TypeError, `${name}: the error itself`)
  }
})

t.test('synchronous guards: no promise is created on the way through', async (t) => {
  const OriginalThen = Promise.prototype.then
  let thens = 0
  Promise.prototype.then = function (this: Promise<unknown>, ...args: Parameters<typeof OriginalThen>) {
    thens++
    return OriginalThen.apply(this, args)
  } as typeof OriginalThen
  let done = 0
  try {
    runGuards(guards, { method: 'POST', headers: JSON_POST }, () => done++)
  } finally {
    Promise.prototype.then = OriginalThen
  }
  t.equal(done, 1, 'done called synchronously')
  t.equal(thens, 0, 'no then() on the synchronous path')
})

t.test('the admission guard (auth and rate limit) sits after Host/Origin and before media type and size; it leaves the principal on the request', async (t) => {
  const seen: string[] = []
  const principal = { id: 'alice' } as unknown as import('../../../src/auth/principal.ts').Principal
  const auth = {
    admit: async (request: { headers: IncomingHttpHeaders }) => {
      seen.push(String(request.headers.authorization))
      return request.headers.authorization === 'Bearer ok'
        ? { ok: true as const, principal }
        : { ok: false as const, error: new GatewayError('MCP_GATEWAY_AUTH_REQUIRED') }
    },
  }
  const list = createFrontGuards({ allowedHosts: ['localhost'], allowedOrigins: [], maxBodyBytes: MAX, auth })
  const foreign = await run(list, { method: 'POST', url: '/mcp', headers: { ...JSON_POST, host: 'evil.example', authorization: 'Bearer x' } })
  t.match(foreign.error, { code: 'MCP_GATEWAY_HTTP_HOST_FORBIDDEN' }, 'Host first')
  t.same(seen, [], 'admission not asked for a foreign Host')
  const anonymous = await run(list, { method: 'POST', url: '/mcp', headers: { ...JSON_POST, 'content-type': 'text/plain' } })
  t.match(anonymous.error, { code: 'MCP_GATEWAY_AUTH_REQUIRED' }, 'no token → 401 before the media type')
  const request: GuardRequest = { method: 'POST', url: '/mcp', headers: { ...JSON_POST, authorization: 'Bearer ok' } }
  const admitted = await run(list, request)
  t.equal(admitted.error, undefined)
  t.equal(request.principal, principal, 'principal left on the request')
  const tooLarge = await run(list, { method: 'POST', url: '/mcp', headers: { ...JSON_POST, authorization: 'Bearer ok', 'content-length': String(MAX + 1) } })
  t.match(tooLarge.error, { code: 'MCP_GATEWAY_HTTP_BODY_TOO_LARGE' }, 'size after admission')
})
