// The embedded default: the published
// @modelcontextprotocol/server-everything (a 2025-11-25 server) over stdio behind the gateway, with
// the config `npm start` uses (src/config/default-config.ts), driven by the SDK v2 client pinned to
// 2026-07-28. Every tool it lists is called; its resources, prompts and completions are used.
//
// Per tool, through the gateway (stdio; the gateway offers it elicitation, sampling and roots):
// | tool                              | works? | how / why not                                                      |
// | --------------------------------- | ------ | ------------------------------------------------------------------ |
// | echo                              | yes    |                                                                    |
// | get-sum                           | yes    |                                                                    |
// | get-tiny-image                    | yes    | image content (image/png, base64)                                  |
// | get-annotated-message             | yes    | annotations on text and image content kept                         |
// | get-env                           | yes    | shows `{}`: the child gets only the config's env (STDIO-7)         |
// | get-resource-links                | yes    | resource_link content                                              |
// | get-resource-reference            | yes    | embedded blob resource                                             |
// | get-structured-content            | yes    | structuredContent kept                                             |
// | gzip-file-as-resource             | yes    | with a data: URL (no network); the session resource reads back     |
// | trigger-long-running-operation    | yes    | progress (token rewritten, restored) before the result             |
// | toggle-simulated-logging          | yes    | a log reaches a client only during its own call, and only          |
// |                                   |        | with a logLevel (LOG-7: test/integration/legacy-log-level.test.ts) |
// | toggle-subscriber-updates         | yes    | a listen stream's resourceSubscriptions become resources/subscribe |
// |                                   |        | on the legacy child; its resources/updated reach the client,       |
// |                                   |        | tagged with the client's listen id                                 |
// | get-roots-list                    | yes    | roots/list bridged to input_required (MRTR)                        |
// | trigger-elicitation-request       | yes    | elicitation/create (form) bridged to input_required                |
// | trigger-url-elicitation           | yes    | URL mode bridged; errorPath=true: its -32042 → a URL round (ERR-5) |
// | trigger-sampling-request          | yes    | sampling/createMessage bridged to input_required                   |
// | simulate-research-query           | no     | taskSupport "required": needs 2025-11-25 task augmentation;        |
// |                                   |        | core tasks are gone in 2026-07-28 (an extension now, not bridged); |
// |                                   |        | the backend's -32601 comes back as an isError result               |
// | trigger-sampling-request-async    | absent | offered only to clients declaring tasks.requests.sampling /        |
// | trigger-elicitation-request-async | absent | tasks.requests.elicitation; the gateway declares no tasks          |
// Limit: server-everything sends roots/list on its own 350 ms after initialize. On a shared stdio
// child that request names no call: with no call in flight it is refused, with exactly one in flight
// it is bridged into that call. The tests wait for the refusal first so no call receives it.
import { gunzipSync } from 'node:zlib'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import t from 'tap'
import type { Test } from 'tap'
import { createDefaultConfig } from '../../src/config/default-config.ts'
import { PROTOCOL_VERSION, createRawClient } from '../helpers/mcp-client.ts'
import { startGateway } from '../helpers/start-gateway.ts'

type Params = Record<string, any>
type Content = { type: string; [key: string]: any }

const GREETING = 'hello through the gateway'
const DATA_URL = `data:text/plain;base64,${Buffer.from(GREETING).toString('base64')}`
const ROOTS = [{ uri: 'file:///tmp/demo', name: 'demo' }]

const gateway = await startGateway(t, createDefaultConfig(), { logs: true })
// See "Limit" above: the child's own roots/list, with no call in flight, is refused.
await gateway.logs!.waitFor((record) => record.msg === 'stdio backend request refused' && record.rpcMethod === 'roots/list')

// What the client was asked (by method), in order.
const asked = new Map<string, Params[]>()
function record(method: string, params: unknown): void {
  asked.set(method, [...(asked.get(method) ?? []), params as Params])
}

async function connect(t: Test): Promise<Client> {
  const client = new Client({ name: 'everything-stdio-test', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
  })
  client.setRequestHandler('elicitation/create', async (request) => {
    record('elicitation/create', request.params)
    if (request.params.mode === 'url') return { action: 'accept' }
    return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } }
  })
  client.setRequestHandler('sampling/createMessage', async (request) => {
    record('sampling/createMessage', request.params)
    return { role: 'assistant', content: { type: 'text', text: 'sampled by the test' }, model: 'test-model', stopReason: 'endTurn' } as any
  })
  client.setRequestHandler('roots/list', async () => {
    record('roots/list', {})
    return { roots: ROOTS }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))
  t.teardown(() => client.close())
  return client
}

const client = await connect(t)

function contentOf(result: unknown): Content[] {
  return ((result as CallToolResult).content ?? []) as Content[]
}

function textOf(result: unknown): string {
  return contentOf(result).filter((part) => part.type === 'text').map((part) => part.text).join('\n')
}

async function call(name: string, args: Params = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

// tap's coverage hook injects its own variables into every spawn; nothing else may appear.
function ownEnv(env: Record<string, string>): string[] {
  return Object.keys(env).filter((key) => !key.startsWith('_TAPJS_PROCESSINFO_') && !(key === 'NODE_OPTIONS' && env[key].includes('@tapjs/processinfo')))
}

// Per tool: what the test expects (the subtest's name) and how it calls the tool.
interface ToolCase {
  expect: string
  run: (t: Test) => Promise<unknown>
}

const TOOL_CASES: ReadonlyMap<string, ToolCase> = new Map<string, ToolCase>([
  ['echo', { expect: 'the message echoed', run: async (t) => t.equal(textOf(await call('echo', { message: 'hi' })), 'Echo: hi') }],
  ['get-sum', { expect: '2 + 3 = 5', run: async (t) => t.match(textOf(await call('get-sum', { a: 2, b: 3 })), /is 5\b/) }],
  ['get-tiny-image', { expect: 'a base64 PNG image', run: async (t) => {
    const image = contentOf(await call('get-tiny-image')).find((part) => part.type === 'image')
    t.equal(image?.mimeType, 'image/png')
    t.same(Buffer.from(image?.data, 'base64').subarray(1, 4).toString('latin1'), 'PNG')
  } }],
  ['get-annotated-message', { expect: 'annotated text and image', run: async (t) => {
    const content = contentOf(await call('get-annotated-message', { messageType: 'error', includeImage: true }))
    t.match(content, [{ type: 'text', annotations: { priority: 1, audience: ['user', 'assistant'] } }, { type: 'image', annotations: Object }])
  } }],
  ['get-env', { expect: 'no variable from the gateway', run: async (t) => {
    t.same(ownEnv(JSON.parse(textOf(await call('get-env'))) as Record<string, string>), [])
  } }],
  ['get-resource-links', { expect: 'two resource links', run: async (t) => {
    const links = contentOf(await call('get-resource-links', { count: 2 })).filter((part) => part.type === 'resource_link')
    t.match(links, [{ uri: /^demo:\/\/resource\/dynamic\// }, { uri: /^demo:\/\/resource\/dynamic\// }])
  } }],
  ['get-resource-reference', { expect: 'an embedded blob resource', run: async (t) => {
    const embedded = contentOf(await call('get-resource-reference', { resourceType: 'Blob', resourceId: 2 })).find((part) => part.type === 'resource')
    t.equal(embedded?.resource.uri, 'demo://resource/dynamic/blob/2')
    t.match(Buffer.from(embedded?.resource.blob, 'base64').toString('utf8'), /^Resource 2:/)
  } }],
  ['get-structured-content', { expect: 'structuredContent', run: async (t) => {
    const result = await call('get-structured-content', { location: 'Chicago' })
    t.match(result.structuredContent, { temperature: Number, conditions: String, humidity: Number })
  } }],
  ['gzip-file-as-resource', { expect: 'the data: URL gzipped as a resource', run: async (t) => {
    const content = contentOf(await call('gzip-file-as-resource', { name: 'inline.txt.gz', data: DATA_URL, outputType: 'resource' }))
    t.equal(content[0]?.resource.mimeType, 'application/gzip')
    t.equal(gunzipSync(Buffer.from(content[0]?.resource.blob, 'base64')).toString('utf8'), GREETING)
  } }],
  ['trigger-long-running-operation', { expect: 'progress 1..3, then the result', run: async (t) => {
    const order: string[] = []
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, {
      onprogress: (progress) => order.push(`progress ${progress.progress}/${progress.total}`),
    })
    order.push('result')
    t.same(order, ['progress 1/3', 'progress 2/3', 'progress 3/3', 'result'])
    t.match(textOf(result), /Long running operation completed/)
  } }],
  ['toggle-simulated-logging', { expect: 'started, then stopped', run: async (t) => {
    t.match(textOf(await call('toggle-simulated-logging')), /^Started simulated/)
    t.match(textOf(await call('toggle-simulated-logging')), /^Stopped simulated/)
  } }],
  ['toggle-subscriber-updates', { expect: 'a subscribed URI gets resources/updated on the listen stream', run: async (t) => {
    const uri = 'demo://resource/static/document/architecture.md'
    const listen = await createRawClient(t, gateway.url).stream('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }, { id: 'subs' })
    const ack = await listen.events.next()
    t.match(ack.value?.message, { method: 'notifications/subscriptions/acknowledged', params: { notifications: { resourceSubscriptions: [uri] } } })
    t.match(textOf(await call('toggle-subscriber-updates')), /^Started simulated resource updated/)
    const update = await listen.events.next()
    t.match(update.value?.message, { method: 'notifications/resources/updated', params: { uri, _meta: { 'io.modelcontextprotocol/subscriptionId': 'subs' } } })
    t.match(textOf(await call('toggle-subscriber-updates')), /^Stopped simulated resource updates/)
  } }],
  ['get-roots-list', { expect: 'the client\'s roots, bridged', run: async (t) => {
    t.match(textOf(await call('get-roots-list')), /Current MCP Roots \(1 total\)[\s\S]*demo[\s\S]*file:\/\/\/tmp\/demo/)
    t.ok(asked.get('roots/list')?.length, 'the client was asked for its roots')
  } }],
  ['trigger-elicitation-request', { expect: 'the user\'s form answer, bridged', run: async (t) => {
    t.match(textOf(await call('trigger-elicitation-request')), /Name: Ada Lovelace/)
    t.match(asked.get('elicitation/create')?.at(-1), { message: /Please provide inputs/, requestedSchema: { type: 'object' } })
  } }],
  ['trigger-url-elicitation', { expect: 'URL mode bridged; the error path (-32042) → a URL round, then the retry proceeds', run: async (t) => {
    const url = 'https://example.com/consent'
    t.match(textOf(await call('trigger-url-elicitation', { url })), /User completed the URL elicitation flow/)
    t.match(asked.get('elicitation/create')?.at(-1), { mode: 'url', url })
    // ERR-5: the -32042 never reaches this 2026-07-28 client; its prerequisite URL becomes a round,
    // and the call sent again is the server's recognised retry, which asks on its request path.
    const before = asked.get('elicitation/create')?.length ?? 0
    t.match(textOf(await call('trigger-url-elicitation', { url, errorPath: true })), /User completed the URL elicitation flow/)
    t.match(asked.get('elicitation/create')?.slice(before), [{ mode: 'url', url: 'https://modelcontextprotocol.io', message: /prerequisite/ }, { mode: 'url', url }],
      'the error\'s prerequisite URL as a round, then the retry\'s own request')
  } }],
  ['trigger-sampling-request', { expect: 'the client\'s sample, bridged', run: async (t) => {
    t.match(textOf(await call('trigger-sampling-request', { prompt: 'Say hi', maxTokens: 10 })), /sampled by the test/)
    t.match(asked.get('sampling/createMessage')?.at(-1), { maxTokens: 10, messages: [{ role: 'user', content: { text: /Say hi/ } }] })
  } }],
  ['simulate-research-query', { expect: 'isError: it needs task augmentation', run: async (t) => {
    const result = await call('simulate-research-query', { topic: 'gateways' })
    t.equal(result.isError, true)
    t.match(textOf(result), /requires task augmentation/)
  } }],
])

const { tools } = await client.listTools()

t.test('tools/list → every tool server-everything offers a client with elicitation, sampling and roots', async (t) => {
  t.same(tools.map((tool) => tool.name).sort(), [...TOOL_CASES.keys()].sort())
  for (const tool of tools) t.match(tool.inputSchema, { type: 'object' }, `${tool.name} has an object input schema`)
  t.notOk(tools.some((tool) => tool.name.endsWith('-async')), 'the task-based *-async tools are not offered')
})

for (const tool of tools) {
  const entry = TOOL_CASES.get(tool.name)
  t.test(`tools/call ${tool.name} → ${entry?.expect ?? 'a case exists'}`, async (t) => {
    if (entry === undefined) return t.fail(`no case for ${tool.name}`)
    await entry.run(t)
  })
}

t.test('resources: list, a static text, a template text, a template blob, a session blob', async (t) => {
  const { resources } = await client.listResources()
  const doc = resources.find((resource) => resource.uri === 'demo://resource/static/document/architecture.md')
  t.match(doc, { mimeType: 'text/markdown' })
  const text = await client.readResource({ uri: doc!.uri })
  t.match(text.contents, [{ uri: doc!.uri, mimeType: 'text/markdown', text: /^# Everything Server/ }])
  const { resourceTemplates } = await client.listResourceTemplates()
  t.same(resourceTemplates.map((template) => template.uriTemplate).sort(), ['demo://resource/dynamic/blob/{resourceId}', 'demo://resource/dynamic/text/{resourceId}'])
  const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/2' })
  t.match(dynamic.contents, [{ uri: 'demo://resource/dynamic/text/2', text: /^Resource 2:/ }])
  const blob = (await client.readResource({ uri: 'demo://resource/dynamic/blob/3' })).contents[0] as Params
  t.match(Buffer.from(blob.blob, 'base64').toString('utf8'), /^Resource 3:/)
  const link = contentOf(await call('gzip-file-as-resource', { name: 'linked.txt.gz', data: DATA_URL })).find((part) => part.type === 'resource_link')
  const gz = (await client.readResource({ uri: link?.uri })).contents[0] as Params
  t.equal(gunzipSync(Buffer.from(gz.blob, 'base64')).toString('utf8'), GREETING, 'a resource the child registered at run time')
})

t.test('prompts: list, then get each with its arguments', async (t) => {
  const { prompts } = await client.listPrompts()
  t.same(prompts.map((prompt) => prompt.name).sort(), ['args-prompt', 'completable-prompt', 'resource-prompt', 'simple-prompt'])
  const values: Record<string, string> = { city: 'Paris', state: 'Texas', department: 'Engineering', name: 'Alice', resourceType: 'Text', resourceId: '1' }
  const expected: Record<string, RegExp> = {
    'simple-prompt': /simple prompt without arguments/, 'args-prompt': /weather in Paris, Texas/,
    'completable-prompt': /promote Alice to the head of the Engineering team/, 'resource-prompt': /Text resource with id: 1/,
  }
  for (const prompt of prompts) {
    const args = Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, values[argument.name]]))
    const result = await client.getPrompt({ name: prompt.name, arguments: args })
    t.match(result.messages[0]?.content, { type: 'text', text: expected[prompt.name] }, prompt.name)
  }
})

t.test('completion/complete → the prompt argument\'s values, narrowed by context', async (t) => {
  const department = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Eng' } })
  t.same(department.completion.values, ['Engineering'])
  const name = await client.complete({
    ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Engineering' } },
  })
  t.same(name.completion.values, ['Alice', 'Bob', 'Charlie'])
})
