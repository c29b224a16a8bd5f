// Backend logs outside any request on 2025-11-25 sessions (LEGACY-9, LOG-5, LOG-7): a backend's
// notifications/message that belongs to no call goes to the GET stream of every legacy session that
// has one open and set a level with logging/setLevel, at that level or more severe; `logger` names
// the backend (its namespace, then the backend's own logger). Real peers: v1 SDK clients with their
// GET streams open; behind the gateway the legacy stdio fixture (a log 50 ms after its answer), the
// published server-everything over HTTP (it logs on its GET stream) and over stdio (a log every 5 s
// while no call is in flight).
import t from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { TeardownHost } from '../helpers/backend-process.ts'
import { connectV1 } from '../helpers/legacy-client.ts'
import { startEverythingHttp } from '../helpers/everything-http.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { buildRpc, readSseEvents } from '../helpers/mcp-client.ts'
import { Agent, request } from 'undici'

const EVERYTHING = new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname
const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname

const everythingHttp = await startEverythingHttp(t)
const gateway = await startGateway(t, {
  backends: [
    { name: 'lg', transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace: 'lg' },
    { name: 'evh', transport: 'http', url: everythingHttp.url, namespace: 'evh' },
    { name: 'ev', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {}, namespace: 'ev' },
  ],
}, { logs: true })

const agent = new Agent()
t.teardown(() => agent.destroy())

interface Log { level: string; data: unknown; logger?: string }

// Every log a client receives, in order, and a wait for the next one that matches.
class Inbox {
  readonly logs: Log[] = []
  #waiters: Array<{ match: (log: Log) => boolean; resolve: (log: Log) => void }> = []

  constructor(client: Client) {
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => this.#take(n.params as Log))
  }

  #take(log: Log): void {
    this.logs.push(log)
    for (const waiter of this.#waiters.filter((w) => w.match(log))) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
      waiter.resolve(log)
    }
  }

  next(match: (log: Log) => boolean): Promise<Log> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }))
  }

  from(logger: string): unknown[] {
    return this.logs.filter((log) => log.logger === logger).map((log) => log.data)
  }
}

// A v1 client whose GET stream is open (the gateway logged it), with its inbox.
async function session(t: TeardownHost, name: string): Promise<{ client: Client; inbox: Inbox }> {
  const opened = gateway.logs!.waitFor((record) => record.msg === 'legacy session stream opened')
  const { client } = await connectV1(t, gateway.url, { name })
  const inbox = new Inbox(client)
  await opened
  return { client, inbox }
}

const logFromFixture = (client: Client, level: string, data: string) =>
  client.callTool({ name: 'lg__log-later', arguments: { level, data, logger: 'fixture' } })

t.test('legacy stdio backend: a log after the call → each session with a level at most as severe; none without a level', async (t) => {
  const info = await session(t, 'at-info')
  const error = await session(t, 'at-error')
  const unset = await session(t, 'no-level')
  t.same(await info.client.setLoggingLevel('info'), {})
  t.same(await error.client.setLoggingLevel('error'), {})

  let heard = info.inbox.next((log) => log.data === 'first')
  await logFromFixture(unset.client, 'info', 'first')
  t.same(await heard, { level: 'info', data: 'first', logger: 'lg__fixture' }, 'info session ← the info log, logger namespaced')

  const errorHeard = error.inbox.next((log) => log.data === 'second')
  heard = info.inbox.next((log) => log.data === 'second')
  await logFromFixture(unset.client, 'error', 'second')
  t.match(await errorHeard, { level: 'error', logger: 'lg__fixture' })
  await heard
  t.same(error.inbox.from('lg__fixture'), ['second'], 'error session: the info log never came (one stream, in order)')
  t.same(info.inbox.from('lg__fixture'), ['first', 'second'], 'info session: both')

  t.same(await unset.client.setLoggingLevel('debug'), {})
  const third = unset.inbox.next((log) => log.data === 'third')
  await logFromFixture(info.client, 'debug', 'third')
  await third
  t.same(unset.inbox.from('lg__fixture'), ['third'], 'no level → nothing before it was set (LOG-2)')
})

t.test('a modern listen stream never gets such a log (LOG-3): the list change after it comes first', async (t) => {
  const { client, inbox } = await session(t, 'witness')
  await client.setLoggingLevel('debug')
  const controller = new AbortController()
  t.teardown(() => controller.abort())
  const { body, headers } = buildRpc('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'modern' })
  const listen = await request(gateway.url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal, dispatcher: agent })
  const events = readSseEvents(listen.body)
  t.equal((await events.next()).value?.message.method, 'notifications/subscriptions/acknowledged')
  const heard = inbox.next((log) => log.data === 'not for modern')
  await logFromFixture(client, 'emergency', 'not for modern')
  await heard
  await client.callTool({ name: 'lg__notify-changed', arguments: {} })
  t.match((await events.next()).value?.message, { method: 'notifications/tools/list_changed' }, 'the next message is the list change, no log before it')
})

// server-everything over HTTP logs on its GET stream; over stdio, every 5 s while no call is in flight.
const EVERYTHING_CASES = [
  { backend: 'evh', what: 'legacy HTTP backend: its GET-stream log' },
  { backend: 'ev', what: 'stdio backend: a log while no call is in flight (within its 5 s interval)' },
]
for (const { backend, what } of EVERYTHING_CASES) {
  t.test(`server-everything, ${what} → the session at debug, logger = the namespace`, async (t) => {
    const { client, inbox } = await session(t, `${backend}-debug`)
    await client.setLoggingLevel('debug')
    const heard = inbox.next((log) => log.logger === backend)
    const toggle = () => client.callTool({ name: `${backend}__toggle-simulated-logging`, arguments: {} })
    t.match(await toggle(), { content: [{ text: /^Started simulated/ }] })
    t.teardown(toggle)
    t.match(await heard, { level: String, data: /-level message|level-message/, logger: backend })
  })
}
