// Which backend notifications reach the client on a request's stream (SSE-1, SSE-7, LOG-2, PROG-2,
// PROG-7).
import type { JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { isLogLevel, isLevelAtLeast, type LogLevel } from '../protocol/meta.ts'

export interface StreamFilter {
  progressToken: string | number | undefined
  logLevel: LogLevel | undefined
  // The last progress value the stream passed on; isDeliverable keeps it.
  lastProgress?: number
}

// PROG-2: a progress value is a number, greater than the last one passed on; a backend's other
// progress (repeated, going back, missing) is dropped, never passed on.
function advancesProgress(filter: StreamFilter, progress: unknown): boolean {
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return false
  if (filter.lastProgress !== undefined && progress <= filter.lastProgress) return false
  filter.lastProgress = progress
  return true
}

export function isDeliverable(notification: JsonRpcNotification, filter: StreamFilter): boolean {
  const params = notification.params
  if (notification.method === 'notifications/progress') {
    // PROG-7: only when the client asked, and only with its own token.
    return filter.progressToken !== undefined && params?.progressToken === filter.progressToken && advancesProgress(filter, params.progress)
  }
  if (notification.method === 'notifications/message') {
    // LOG-2, LOG-7: only when the client set a level, and at that level or more severe.
    if (filter.logLevel === undefined) return false
    return isLogLevel(params?.level) && isLevelAtLeast(params.level, filter.logLevel)
  }
  // Anything else does not concern this request (SSE-1); list changes go to listen streams.
  return false
}
