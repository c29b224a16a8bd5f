// Per-request `_meta` (META-*): the reserved keys and the checks on them. Pure.
import { isJsonObject, type JsonObject } from './jsonrpc.ts'

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  progressToken: 'progressToken',
} as const

// LOG-5, least to most severe.
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value)
}

export function getMeta(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta
  return isJsonObject(meta) ? meta : undefined
}

export function hasModernMeta(params: JsonObject | undefined): boolean {
  return getMeta(params)?.[META.protocolVersion] !== undefined
}

export type MetaCheck = { ok: true; meta: JsonObject; version: string } | { ok: false; detail: string }

// META-1: protocolVersion (string) and clientCapabilities (object) are required on every request.
export function validateMeta(params: JsonObject | undefined): MetaCheck {
  const meta = getMeta(params)
  if (!meta) return { ok: false, detail: 'params._meta is required' }
  const version = meta[META.protocolVersion]
  if (typeof version !== 'string') return { ok: false, detail: `_meta["${META.protocolVersion}"] is required` }
  if (!isJsonObject(meta[META.clientCapabilities])) {
    return { ok: false, detail: `_meta["${META.clientCapabilities}"] is required` }
  }
  return { ok: true, meta, version }
}

// PROG-1: a progress token is a string or an integer.
export function getProgressToken(meta: JsonObject | undefined): string | number | undefined {
  const token = meta?.[META.progressToken]
  if (typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token))) return token
  return undefined
}

export function isLevelAtLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold)
}
