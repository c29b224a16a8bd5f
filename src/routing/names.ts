// Gateway names for tools and prompts: namespace + separator + backend name (FEAT-1, FEAT-2).
export const MAX_NAME_LENGTH = 128
const SAFE_NAME = /^[A-Za-z0-9_.-]+$/

export function toGatewayName(namespace: string, separator: string, name: string): string {
  return namespace === '' ? name : `${namespace}${separator}${name}`
}

// FEAT-1: a SHOULD; names outside it still work (Base64 Mcp-Name, HDR-3), so we only warn.
export function describeNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return `length must be 1 to ${MAX_NAME_LENGTH}`
  if (!SAFE_NAME.test(name)) return 'characters outside A-Z a-z 0-9 _ - .'
  return undefined
}

// A backend's log outside any request reaches a stream that every backend shares, so its `logger`
// names the backend the way tool names do (FEAT-2; LOG-5 leaves `logger` free): namespace +
// separator + the backend's logger, or the namespace alone; unchanged with no namespace.
export function toGatewayLogger(namespace: string, separator: string, logger: unknown): string | undefined {
  const own = typeof logger === 'string' && logger !== '' ? logger : undefined
  if (own === undefined) return namespace === '' ? undefined : namespace
  return toGatewayName(namespace, separator, own)
}
