// What a routed call came to, for mcp_gateway_tool_call_duration_seconds: a result that says
// `isError: true` is a tool error, not ok; an error the gateway produced is an upstream failure
// (or a cancellation when the client left); a backend's own JSON-RPC error is an error.
import { RESULT_TYPE } from '../protocol/result.ts'
import { TOOL_OUTCOME, type ToolOutcome } from '../observability/tool-metrics.ts'
import type { RouteReply } from './route-replies.ts'
import type { CancelSignal } from '../upstream/shared/cancel-signal.ts'
import { secondsSince } from '../observability/clock.ts'

// A spliced reply is never input_required (result-splice.ts), and reading its result would build it.
function isInputRound(reply: RouteReply): boolean {
  return reply.ok && reply.json === undefined && reply.result.resultType === RESULT_TYPE.inputRequired
}

export function toolCallOutcome(reply: RouteReply, signal: CancelSignal): ToolOutcome {
  if (signal.aborted) return TOOL_OUTCOME.cancelled
  if (!reply.ok) return reply.origin === 'gateway' ? TOOL_OUTCOME.upstreamFailure : TOOL_OUTCOME.error
  if (isInputRound(reply)) return TOOL_OUTCOME.inputRequired
  return reply.toolError === true ? TOOL_OUTCOME.toolError : TOOL_OUTCOME.ok
}

export interface CallObservers {
  observeToolCall?: (backend: string, tool: string, outcome: ToolOutcome, seconds: number) => void
  countMrtrRound?: () => void
}

// One routed request done: an input round is counted, a resolved tool call timed (by its name at
// its backend: names the catalogue does not know never become labels).
export function observeRouted(observers: CallObservers, ctx: { backend?: string; upstreamTool?: string; signal: CancelSignal }, reply: RouteReply, startedMs: number): void {
  if (isInputRound(reply)) observers.countMrtrRound?.()
  if (ctx.upstreamTool === undefined || ctx.backend === undefined) return
  observers.observeToolCall?.(ctx.backend, ctx.upstreamTool, toolCallOutcome(reply, ctx.signal), secondsSince(startedMs))
}
