// Aggregated prompts/resources/templates, routed prompts/get, resources/read and completion/complete,
// pagination across backends (PAGE-*) and caching hints (CACHE-*), on real sockets: two SDK v2
// backends as child processes (namespaces `a` and `b`) behind one gateway, driven by raw undici.
// Backend a's lists are public with a long ttlMs, b's are private with ttlMs 0 (the SDK's default).
import t, { type Test } from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient, type JsonValue } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const PAGE_SIZE = 4
const INVALID_PARAMS = -32602

const [alpha, beta] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha', '--extras', '--tools', '3', '--ttl-ms', '60000']),
  startFixture(t, BACKEND, ['--name', 'beta', '--extras', '--tools', '2']),
])
const gateway = await startGateway(t, {
  listPageSize: PAGE_SIZE,
  backends: [
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
    { name: 'b', transport: 'http', url: beta.url, namespace: 'b' },
  ],
})
const raw = createRawClient(t, gateway.url)

let nextId = 0

// One successful request's result; anything else fails loudly.
async function call(method: string, params: JsonValue = {}): Promise<any> {
  const id = `req-${++nextId}`
  const reply = await raw.rpc(method, params, { id })
  if (reply.status !== 200 || reply.json?.result === undefined) throw new Error(`${method}: HTTP ${reply.status} ${reply.text}`)
  return reply.json.result
}

// Follows gateway cursors to the end; returns every page's result.
async function listPages(method: string): Promise<any[]> {
  const pages: any[] = []
  let cursor: string | undefined
  do {
    const result = await call(method, cursor === undefined ? {} : { cursor })
    pages.push(result)
    cursor = result.nextCursor
  } while (cursor !== undefined && pages.length < 50)
  return pages
}

async function listAll(method: string, key: string): Promise<any[]> {
  return (await listPages(method)).flatMap((page) => page[key])
}

function expectInvalidParams(t: Test, reply: { status: number; json: any }, id: string): void {
  t.equal(reply.status, 200, 'in-band error at HTTP 200')
  t.equal(reply.json.id, id, 'the request id is echoed')
  t.equal(reply.json.error?.code, INVALID_PARAMS)
}

t.test('prompts/list → both backends, a first, names namespaced', async (t) => {
  const prompts = await listAll('prompts/list', 'prompts')
  const expected = ['greet', 'summarize', 'translate']
  t.same(prompts.map((p) => p.name), [...expected.map((n) => `a__${n}`), ...expected.map((n) => `b__${n}`)])
  t.match(prompts.find((p) => p.name === 'b__summarize'), { description: 'summarize a topic', arguments: [{ name: 'topic' }] })
})

t.test('resources/list → both backends, a first, URIs and names untouched', async (t) => {
  const resources = await listAll('resources/list', 'resources')
  const uris = (name: string): string[] => ['info', 'docs', 'changelog'].map((r) => `fixture://${name}/${r}`)
  t.same(resources.map((r) => r.uri), [...uris('alpha'), ...uris('beta')])
  t.same(resources.map((r) => r.name), ['info', 'docs', 'changelog', 'info', 'docs', 'changelog'])
})

t.test('resources/templates/list → both backends, a first, templates untouched', async (t) => {
  const templates = await listAll('resources/templates/list', 'resourceTemplates')
  const of = (name: string): string[] => [`fixture://${name}/items/{id}`, `fixture://${name}/users/{user}`]
  t.same(templates.map((r) => r.uriTemplate), [...of('alpha'), ...of('beta')])
})

t.test('prompts/get → the owning backend, under its own prompt name', async (t) => {
  const a = await call('prompts/get', { name: 'a__summarize', arguments: { topic: 'tides' } })
  t.match(a.messages, [{ role: 'user', content: { type: 'text', text: 'alpha summarizes tides' } }])
  const b = await call('prompts/get', { name: 'b__greet', arguments: { name: 'Ada' } })
  t.match(b.messages, [{ role: 'user', content: { type: 'text', text: 'beta says hello to Ada' } }])
  t.equal(b.resultType, 'complete')
})

t.test('resources/read → the backend owning the URI (listed or by template); unknown URI → -32602', async (t) => {
  const docs = await call('resources/read', { uri: 'fixture://beta/docs' })
  t.same(docs.contents, [{ uri: 'fixture://beta/docs', mimeType: 'text/plain', text: 'docs at fixture://beta/docs' }])
  const item = await call('resources/read', { uri: 'fixture://alpha/items/7' })
  t.match(item.contents, [{ uri: 'fixture://alpha/items/7', text: 'alpha item 7' }])
  const user = await call('resources/read', { uri: 'fixture://beta/users/bob' })
  t.match(user.contents, [{ text: 'beta user bob' }])
  const unknown = await raw.rpc('resources/read', { uri: 'fixture://gamma/docs' }, { id: 'unknown-uri' })
  expectInvalidParams(t, unknown, 'unknown-uri')
  t.same(unknown.json.error.data?.uri, 'fixture://gamma/docs')
})

t.test('completion/complete → routed by template URI and by prompt name', async (t) => {
  const argument = { name: 'user', value: '' }
  const b = await call('completion/complete', { ref: { type: 'ref/resource', uri: 'fixture://beta/users/{user}' }, argument })
  t.same(b.completion.values, ['beta-ann', 'beta-bob'])
  const a = await call('completion/complete', { ref: { type: 'ref/resource', uri: 'fixture://alpha/users/{user}' }, argument: { name: 'user', value: 'alpha-b' } })
  t.same(a.completion.values, ['alpha-bob'])
  const prompt = await call('completion/complete', { ref: { type: 'ref/prompt', name: 'b__greet' }, argument: { name: 'name', value: 'A' } })
  t.ok(Array.isArray(prompt.completion.values), 'a prompt completion answered by backend b')
  const unknown = await raw.rpc('completion/complete', { ref: { type: 'ref/prompt', name: 'c__greet' }, argument }, { id: 'unknown-prompt' })
  expectInvalidParams(t, unknown, 'unknown-prompt')
})

t.test('tools/list pages → every tool exactly once, a then b, stable over two walks', async (t) => {
  const walk = async (): Promise<string[][]> => (await listPages('tools/list')).map((page) => page.tools.map((tool: { name: string }) => tool.name))
  const pages = await walk()
  t.ok(pages.length > 1, `${pages.length} pages`)
  t.ok(pages.every((page) => page.length > 0 && page.length <= PAGE_SIZE), 'no page is empty or over the page size')
  const names = pages.flat()
  t.equal(new Set(names).size, names.length, 'no tool twice')
  const base = ['echo', 'add', 'progress', 'hang', 'fail', 'notify-tools-changed', 'notify-prompts-changed', 'touch-resource', 'listen-count', 'ask-name']
  const of = (ns: string, bulk: number): string[] => [...base, ...Array.from({ length: bulk }, (_, i) => `bulk-${i + 1}`)].map((n) => `${ns}__${n}`)
  t.same([...names].sort(), [...of('a', 3), ...of('b', 2)].sort(), 'all tools of both backends')
  t.ok(names.findLastIndex((n) => n.startsWith('a__')) < names.findIndex((n) => n.startsWith('b__')), 'backend a first')
  t.same(await walk(), pages, 'the same pages again')
})

t.test('invalid cursors → -32602 at HTTP 200', async (t) => {
  const first = await call('tools/list')
  const cursor: string = first.nextCursor
  t.type(cursor, 'string')
  const cases: Array<[string, string, unknown]> = [
    ['garbage', 'tools/list', 'not-a-cursor'],
    ['tampered', 'tools/list', `${cursor}-x`],
    ['body flipped', 'tools/list', (cursor[0] === 'A' ? 'B' : 'A') + cursor.slice(1)],
    ['empty string', 'tools/list', ''],
    ['not a string', 'tools/list', 42],
    ['tools cursor on prompts/list', 'prompts/list', cursor],
  ]
  for (const [label, method, bad] of cases) {
    const reply = await raw.rpc(method, { cursor: bad }, { id: label })
    t.test(`${label} → -32602`, async (t) => expectInvalidParams(t, reply, label))
  }
})

t.test('every list and read result → ttlMs and cacheScope; one cacheScope for all pages (PAGE-5)', async (t) => {
  for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
    const pages = await listPages(method)
    t.ok(pages.every((page) => Number.isInteger(page.ttlMs) && page.ttlMs >= 0), `${method}: integer ttlMs on ${pages.length} page(s)`)
    // a is public, b private: every page, even one holding only a's items, is private (CACHE-12).
    t.same(new Set(pages.map((page) => page.cacheScope)), new Set(['private']), `${method}: one cacheScope`)
    t.ok(pages.every((page) => page.ttlMs === 0), `${method}: the shortest ttlMs (b's 0) on every page`)
  }
  const read = await call('resources/read', { uri: 'fixture://alpha/info' })
  t.ok(Number.isInteger(read.ttlMs) && read.ttlMs >= 0, 'resources/read: integer ttlMs')
  t.ok(['public', 'private'].includes(read.cacheScope), 'resources/read: cacheScope')
})

// PAGE-6: a cursor is bound to the list it paged; a list that changed makes it -32602, so the
// client starts over instead of skipping or repeating items.
t.test('a list that changes between pages → its cursor is -32602; unchanged → it works', async (t) => {
  const pager = await startFixture(t, BACKEND, ['--name', 'pager', '--extras'])
  const own = await startGateway(t, { listPageSize: 2, backends: [{ name: 'p', transport: 'http', url: pager.url, namespace: 'p' }] })
  const client = createRawClient(t, own.url)
  const first = await client.rpc('tools/list', {}, { id: 'page-1' })
  const cursor = first.json.result.nextCursor
  t.type(cursor, 'string', 'more than one page')
  const again = await client.rpc('tools/list', { cursor }, { id: 'page-2' })
  t.equal(again.json.error, undefined, 'the list is unchanged: the cursor works')
  t.equal(again.json.result.tools.length, 2)
  await client.rpc('tools/call', { name: 'p__notify-tools-changed', arguments: { tool: 'fresh', silent: true } })
  const stale = await client.rpc('tools/list', { cursor }, { id: 'stale' })
  t.equal(stale.status, 200)
  t.match(stale.json, { id: 'stale', error: { code: INVALID_PARAMS } }, 'the list changed: start again')
  const restart = await client.rpc('tools/list', {}, { id: 'restart' })
  t.type(restart.json.result.nextCursor, 'string', 'a fresh listing pages again')
})
