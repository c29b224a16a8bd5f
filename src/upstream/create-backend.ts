// One factory for every backend kind in the config.
import type { Logger } from '../observability/logger.ts'
import type { BackendConfig } from '../config/types.ts'
import type { ServerInfo } from '../protocol/result.ts'
import type { Backend } from './backend.ts'
import { createHttpBackend } from './http/http-backend.ts'
import type { CredentialSource } from './http/backend-credentials-send.ts'
import { createStdioBackend } from './stdio/stdio-backend.ts'
import type { ReplyBudget } from './shared/reply-budget.ts'

export interface BackendDeps {
  logger: Logger
  clientInfo: ServerInfo
  // The gateway's own credential for an HTTP backend (AUTH-8); stdio backends take theirs from
  // their environment (AUTH-17).
  credentials?: CredentialSource
  // The reply bytes all HTTP backends may buffer at once (README "Limits"); stdio replies are one
  // line at a time per child, bounded by its maxLineBytes.
  replyBudget?: ReplyBudget
  // A stdio child is restarted (mcp_gateway_stdio_restarts_total).
  onRestart?: () => void
}

export function createBackend(config: BackendConfig, deps: BackendDeps): Backend {
  if (config.transport === 'http') return createHttpBackend(config, deps)
  return createStdioBackend(config, deps)
}
