// Receives the backends' loopback UDP reports (see fixtures/reporter.ts) and lets a scenario
// wait, bounded in time, for the report about one key.
import { createSocket } from 'node:dgram'

export interface ReportListener {
  port: number
  waitFor(key: string, timeoutMs: number): Promise<bigint | undefined>
  close(): void
}

interface Report {
  event: string
  key: string
  tNs: string
}

function parseReport(text: string): Report | undefined {
  try {
    const value = JSON.parse(text) as Partial<Report>
    return typeof value.key === 'string' && typeof value.tNs === 'string' ? (value as Report) : undefined
  } catch {
    return undefined
  }
}

export async function createReportListener(): Promise<ReportListener> {
  const socket = createSocket('udp4')
  const arrived = new Map<string, bigint>()
  const waiting = new Map<string, (tNs: bigint) => void>()
  socket.on('message', (data) => {
    const report = parseReport(data.toString('utf8'))
    if (report === undefined) return
    const tNs = BigInt(report.tNs)
    const resolve = waiting.get(report.key)
    if (resolve) resolve(tNs)
    else arrived.set(report.key, tNs)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  socket.unref()
  return {
    port: socket.address().port,
    waitFor(key, timeoutMs) {
      const early = arrived.get(key)
      if (early !== undefined) {
        arrived.delete(key)
        return Promise.resolve(early)
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(key)
          resolve(undefined)
        }, timeoutMs)
        waiting.set(key, (tNs) => {
          clearTimeout(timer)
          waiting.delete(key)
          resolve(tNs)
        })
      })
    },
    close: () => socket.close()
  }
}
