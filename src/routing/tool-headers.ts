// HDR-7: a tools/call's Mcp-Param-* headers checked against the tool's x-mcp-header annotations,
// and the headers the backend gets (HDR-9/10). A tool definition is read once per catalog fetch,
// not once per call.
import { GatewayError } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { buildParamHeaders, checkParamHeaders, readHeaderParams, type HeaderParamsResult } from '../protocol/param-headers.ts'
import type { ValidRequest } from '../protocol/validate.ts'

export class ToolHeaders {
  readonly #annotations = new WeakMap<JsonObject, HeaderParamsResult>()

  // The backend's Mcp-Param-* headers (undefined: none); a mismatch with the body is refused.
  forCall(valid: ValidRequest, tool: JsonObject | undefined): Record<string, string> | undefined {
    const annotations = tool ? this.#annotationsOf(tool) : undefined
    // HDR-11: a tool dropped from tools/list for its annotations is not callable either.
    if (annotations?.ok === false) throw new GatewayError('MCP_GATEWAY_TOOL_UNKNOWN', valid.params.name as string)
    const params = annotations?.ok ? annotations.params : []
    // A legacy request mirrors nothing (LEGACY-16): the backend's headers come from the body alone.
    const problem = valid.legacy ? undefined : checkParamHeaders(params, valid.params.arguments, valid.paramHeaders)
    if (problem !== undefined) throw new GatewayError('MCP_GATEWAY_HEADER_MISMATCH', problem)
    if (params.length === 0 && valid.paramHeaders.size === 0) return undefined
    return buildParamHeaders(params, valid.params.arguments, valid.paramHeaders)
  }

  // HDR-12: the headers the tool's current definition calls for, built from the body alone (the
  // client mirrored the definition it was shown); undefined when that definition is invalid.
  forResend(valid: ValidRequest, tool: JsonObject): Record<string, string> | undefined {
    const annotations = this.#annotationsOf(tool)
    return annotations.ok ? buildParamHeaders(annotations.params, valid.params.arguments, valid.paramHeaders) : undefined
  }

  #annotationsOf(tool: JsonObject): HeaderParamsResult {
    let cached = this.#annotations.get(tool)
    if (!cached) this.#annotations.set(tool, (cached = readHeaderParams(tool)))
    return cached
  }
}
