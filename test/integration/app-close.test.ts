// app.close() and connections (src/app.ts): a client that opened a connection and never sent a
// request does not hold the close until the keep-alive or headers timeout; it is closed at once.
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import t from 'tap'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'

// Far below the 72 s keep-alive timeout and the 60 s headers timeout a hang would wait for.
const BOUND_MS = 10_000

t.test('a raw TCP connection that never sends a request → app.close() finishes, the socket is closed', async (t) => {
  const result = validateConfig({ port: 0, stateSecret: 'test-secret-test-secret-test-secret', backends: [] })
  if (!result.ok) return t.fail(result.errors.join('; '))
  const app = await build(result.config, { logger: false })
  let closed = false
  t.teardown(() => (closed ? undefined : app.close()))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const accepted = once(app.server, 'connection')
  const { port } = app.server.address() as { port: number }
  const socket: Socket = connect(port, '127.0.0.1')
  t.teardown(() => socket.destroy())
  const socketClosed = once(socket, 'close')
  await once(socket, 'connect')
  await accepted
  const bound = new Promise<'hung'>((resolve) => setTimeout(resolve, BOUND_MS, 'hung').unref())
  const closing = app.close().then(() => { closed = true; return 'closed' as const })
  t.equal(await Promise.race([closing, bound]), 'closed', 'app.close() finished')
  t.equal(await Promise.race([socketClosed.then(() => 'socket closed' as const), bound]), 'socket closed', 'the idle connection was closed by the server')
})
