// The logger shape the core needs: satisfied by pino and by Fastify's request/app loggers.
import type { LogFn } from 'pino'

export interface Logger {
  debug: LogFn
  info: LogFn
  warn: LogFn
  error: LogFn
  child(bindings: Record<string, unknown>): Logger
}
