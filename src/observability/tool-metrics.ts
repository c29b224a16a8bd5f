// Tool calls and MRTR rounds, on the app's own Registry. The `tool` label is a name the catalogue
// resolved (the router observes only resolved calls), and past `toolLabelLimit` distinct
// (backend, tool) pairs new ones become `other`: a flood of tool names cannot grow the registry.
import { Counter, type Registry } from 'prom-client'
import { LabelCap } from './label-cap.ts'
import { PathHistogram } from './path-series.ts'

export const TOOL_OUTCOME = {
  ok: 'ok',
  // The tool ran and reported a failure in its result (`isError: true`).
  toolError: 'tool_error',
  // The backend answered a JSON-RPC error.
  error: 'error',
  // The gateway got no answer (down, timeout, bad reply, limit).
  upstreamFailure: 'upstream_failure',
  cancelled: 'cancelled',
  // The call asked the client for input (MRTR round); the retry is observed on its own.
  inputRequired: 'input_required',
} as const
export type ToolOutcome = (typeof TOOL_OUTCOME)[keyof typeof TOOL_OUTCOME]

export const OTHER_TOOL = 'other'

export interface ToolMetrics {
  observeCall(backend: string, tool: string, outcome: ToolOutcome, seconds: number): void
  countMrtrRound(): void
}

export function createToolMetrics(registry: Registry, options: { buckets: number[]; toolLabelLimit: number }): ToolMetrics {
  const duration = new PathHistogram({
    name: 'mcp_gateway_tool_call_duration_seconds',
    help: 'tools/call duration by backend, tool (resolved names, capped) and outcome',
    labelNames: ['backend', 'tool', 'outcome'],
    buckets: options.buckets,
    registers: [registry],
  })
  const rounds = new Counter({ name: 'mcp_gateway_mrtr_rounds_total', help: 'Results that asked the client for input (input_required rounds)', registers: [registry] })
  // The (backend, tool) pairs that have a label of their own, at most toolLabelLimit.
  const tools = new LabelCap(options.toolLabelLimit, OTHER_TOOL)
  return {
    observeCall(backend, tool, outcome, seconds) {
      duration.observe(seconds, backend, tools.label(tool, backend), outcome)
    },
    countMrtrRound() {
      rounds.inc()
    },
  }
}
