// Capabilities across the eras (LEGACY-16, LEGACY-2, CAP-2). Pure.
// A legacy client's capabilities are fixed at initialize and travel in its session token, so only
// what routing needs is kept, as short flags: the input requests it can be sent (MRTR-4).
import { isJsonObject, type JsonObject } from '../jsonrpc.ts'

export const CLIENT_FLAG = {
  roots: 'r',
  sampling: 's',
  samplingContext: 'sc',
  samplingTools: 'st',
  elicitationForm: 'ef',
  elicitationUrl: 'eu',
} as const
export type ClientFlag = (typeof CLIENT_FLAG)[keyof typeof CLIENT_FLAG]

const ALL_FLAGS: ReadonlySet<string> = new Set(Object.values(CLIENT_FLAG))

export function isClientFlag(value: unknown): value is ClientFlag {
  return typeof value === 'string' && ALL_FLAGS.has(value)
}

function elicitationFlags(declared: JsonObject): ClientFlag[] {
  // CAP-2: an empty elicitation object means form mode only.
  if (!('form' in declared) && !('url' in declared)) return [CLIENT_FLAG.elicitationForm]
  const flags: ClientFlag[] = []
  if (isJsonObject(declared.form)) flags.push(CLIENT_FLAG.elicitationForm)
  if (isJsonObject(declared.url)) flags.push(CLIENT_FLAG.elicitationUrl)
  return flags
}

// `tasks`, `experimental` and `roots.listChanged` are dropped: the gateway relays none of them.
export function compactClientCapabilities(capabilities: unknown): ClientFlag[] {
  if (!isJsonObject(capabilities)) return []
  const flags: ClientFlag[] = []
  if (isJsonObject(capabilities.roots)) flags.push(CLIENT_FLAG.roots)
  const sampling = capabilities.sampling
  if (isJsonObject(sampling)) {
    flags.push(CLIENT_FLAG.sampling)
    if (isJsonObject(sampling.context)) flags.push(CLIENT_FLAG.samplingContext)
    if (isJsonObject(sampling.tools)) flags.push(CLIENT_FLAG.samplingTools)
  }
  if (isJsonObject(capabilities.elicitation)) flags.push(...elicitationFlags(capabilities.elicitation))
  return flags
}

// The 2026-07-28 ClientCapabilities shape of the flags, as `_meta` carries it to the router.
export function toModernClientCapabilities(flags: readonly string[]): JsonObject {
  const has = new Set(flags)
  const capabilities: JsonObject = {}
  if (has.has(CLIENT_FLAG.roots)) capabilities.roots = {}
  if (has.has(CLIENT_FLAG.sampling)) {
    const sampling: JsonObject = {}
    if (has.has(CLIENT_FLAG.samplingContext)) sampling.context = {}
    if (has.has(CLIENT_FLAG.samplingTools)) sampling.tools = {}
    capabilities.sampling = sampling
  }
  const elicitation: JsonObject = {}
  if (has.has(CLIENT_FLAG.elicitationForm)) elicitation.form = {}
  if (has.has(CLIENT_FLAG.elicitationUrl)) elicitation.url = {}
  if (Object.keys(elicitation).length > 0) capabilities.elicitation = elicitation
  return capabilities
}

// 2025-11-25 ServerCapabilities keys and the flags each may carry.
const SERVER_KEYS: ReadonlyMap<string, readonly string[]> = new Map([
  ['tools', ['listChanged']],
  ['prompts', ['listChanged']],
  ['resources', ['subscribe', 'listChanged']],
  ['completions', []],
  ['logging', []],
])

// LEGACY-2: what the gateway declares in InitializeResult, from its own (discover) capabilities:
// only the 2025-11-25 keys, and only their boolean flags.
export function toLegacyServerCapabilities(modern: JsonObject): JsonObject {
  const legacy: JsonObject = {}
  for (const [key, flags] of SERVER_KEYS) {
    const declared = modern[key]
    if (!isJsonObject(declared)) continue
    const out: JsonObject = {}
    for (const flag of flags) if (typeof declared[flag] === 'boolean') out[flag] = declared[flag]
    legacy[key] = out
  }
  return legacy
}
