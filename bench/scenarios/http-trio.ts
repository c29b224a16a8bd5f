// The ways to reach the HTTP fixture backend: directly, through the bare Fastify+undici forwarder
// (and, asked for, its raw-bytes variant), through the gateway (configured with that backend plus one stdio backend).
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { startBareForwarder, startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, createStdioEntry, GATEWAY_MISSING, startGateway } from '../lib/gateway-target.ts'

export interface HttpTrio {
  backend: Target
  slots: TargetSlot[]
  stop(): Promise<void>
}

export interface TrioOptions {
  keepAliveMs?: number
  withBare?: boolean
  // Also the bare forwarder that passes the raw bytes on unparsed (row "bare-raw").
  withRawBare?: boolean
  gatewaySettings?: Record<string, unknown>
}

// The gateway fronts b1 (HTTP) and s1 (stdio). While it cannot start with s1, it is measured with
// b1 alone (noted), so that the HTTP scenarios still have a gateway column.
async function startTrioGateway(ctx: BenchContext, backend: Target, settings?: Record<string, unknown>): Promise<TargetSlot> {
  const http = createHttpEntry('b1', backend.url)
  const full = await startGateway(ctx, { backends: [http, createStdioEntry(ctx, 's1')], settings })
  if (full.target || full.reason === GATEWAY_MISSING) return full
  const httpOnly = await startGateway(ctx, { backends: [http], settings })
  if (!httpOnly.target) return full
  return { ...httpOnly, withoutStdio: true, note: `gateway ran with b1 only: with s1 too it ${full.reason ?? 'failed'}` }
}

export async function startHttpTrio(ctx: BenchContext, options: TrioOptions = {}): Promise<HttpTrio> {
  const backend = await startHttpBackend(ctx, { keepAliveMs: options.keepAliveMs })
  const started: Target[] = [backend]
  const slots: TargetSlot[] = [{ name: 'direct', target: { ...backend, name: 'direct' } }]
  try {
    if (options.withBare !== false) {
      const bare = await startBareForwarder(ctx, backend.url)
      started.push(bare)
      slots.push({ name: 'bare', target: bare })
    }
    if (options.withRawBare === true) {
      const raw = await startBareForwarder(ctx, backend.url, { raw: true })
      started.push(raw)
      slots.push({ name: 'bare-raw', target: raw })
    }
    const gateway = await startTrioGateway(ctx, backend, options.gatewaySettings)
    if (gateway.target) started.push(gateway.target)
    slots.push(gateway)
  } catch (err) {
    await Promise.all(started.map((target) => target.handle.stop()))
    throw err
  }
  return { backend, slots, stop: async () => void (await Promise.all(started.map((target) => target.handle.stop()))) }
}
