// The connection gate's open-file arithmetic: the soft RLIMIT_NOFILE read from /proc/self/limits,
// the cap lowered to three quarters of it, and one warning line when a connection arrives while
// the process is near the limit (a real server and socket; the limit given small on purpose).
import t from 'tap'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { ConnectionGate, softFdLimit } from '../../../src/front/connection-gate.ts'
import { createMetrics } from '../../../src/observability/metrics.ts'

t.test('softFdLimit reads "Max open files" (soft column); none → undefined', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-'))
  const file = join(dir, 'limits')
  writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 1048576              files\n')
  t.equal(softFdLimit(file), 1024)
  writeFileSync(file, 'Max open files            unlimited            unlimited            files\n')
  t.equal(softFdLimit(file), undefined)
  t.equal(softFdLimit(join(dir, 'absent')), undefined)
  t.ok((softFdLimit() ?? 1) > 0, 'this process\'s own (Linux)')
})

t.test('the cap is lowered to 3/4 of the fd limit (with a warning); a connection near the fd limit logs once', async (t) => {
  const warnings: Array<[object, string]> = []
  const log = { warn: (fields: object, msg: string) => void warnings.push([fields, msg]) } as any
  const fds = readdirSync('/proc/self/fd').length
  const gate = new ConnectionGate({ limit: 10_000, metrics: createMetrics(new Registry()), log, fdLimit: fds + 4 })
  t.equal(gate.limit, Math.floor((fds + 4) * 0.75))
  t.match(warnings[0], [{ connections: 10_000 }, /lowered/])
  const server = createServer((_req, res) => res.end())
  gate.attach(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1')
  t.teardown(() => void socket.destroy())
  await once(server, 'connection')
  t.match(warnings[1], [{ fdLimit: fds + 4 }, 'near the open-file limit'])
  t.equal(gate.open, 1)
})
