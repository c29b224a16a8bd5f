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
