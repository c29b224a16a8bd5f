// Scenario 7: `tools/call` answered as JSON through the gateway without and with authentication
// (a JWT on every request, JWKS cached): what authentication costs per call.
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { startJwtIssuer } from '../lib/jwt-issuer.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating, type LoadTarget } from '../lib/load-scenario.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'

// The gateway's canonical URI: only an identifier (the token's audience).
const RESOURCE = 'http://127.0.0.1/mcp'
const AUTHENTICATED = 'gateway+jwt'

function rename(slot: TargetSlot, name: string): TargetSlot {
  return slot.target ? { ...slot, name, target: { ...slot.target, name } } : { ...slot, name }
}

function withBearer(token: string): LoadTarget['prepare'] {
  const plain = createCallFactory('echo', false)
  return async (pool, target: Target) => {
    const next = await plain(pool, target)
    return () => {
      const request = next()
      request.headers.authorization = `Bearer ${token}`
      return request
    }
  }
}

export async function runToolsCallJwt(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  const issuer = await startJwtIssuer(RESOURCE)
  const started: TargetSlot[] = []
  try {
    const backends = [createHttpEntry('b1', backend.url)]
    const auth = { resource: RESOURCE, authorizationServers: [issuer.issuer], jwksUri: issuer.jwksUri, requiredScopes: ['mcp'] }
    started.push(await startGateway(ctx, { backends }), rename(await startGateway(ctx, { backends, settings: { auth } }), AUTHENTICATED))
    const plan = createLoadPlan(ctx.options)
    const entries: LoadTarget[] = [
      { slot: started[0], prepare: createCallFactory('echo', false) },
      { slot: started[1], prepare: withBearer(issuer.token) },
    ]
    const measures = await runAlternating(ctx, entries, plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [open, authenticated] = ['gateway', AUTHENTICATED].map((name) => findRow(rows, name))
    return {
      id: 7,
      title: `tools/call JSON with a JWT on every request, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('authenticated / open CPU per call', authenticated.cpuUsPerReq ?? null, open.cpuUsPerReq ?? null, { text: '<= 1.15', check: (v) => v <= 1.15 }),
        createRatio('authenticated / open throughput', authenticated.rps ?? null, open.rps ?? null),
        createRatio('authenticated / open p50 latency', authenticated.p50Ms ?? null, open.p50Ms ?? null),
      ],
      notes: ['both gateways front the same HTTP fixture backend; the JWT is RS256, its JWKS fetched once and cached', ...describeProblems(measures)],
    }
  } finally {
    await Promise.all([backend.handle.stop(), issuer.stop(), ...started.map((slot) => slot.target?.handle.stop())])
  }
}
