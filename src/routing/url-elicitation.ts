// ERR-5, LEGACY-C5: a 2025-11-25 backend's -32042 "URL elicitation required" never reaches a modern
// client as such. When the client declared URL elicitation and the method takes input rounds, its
// URL elicitations become an InputRequiredResult's elicitation/create requests; the user completes
// them at the URL, out of band, and the client's retry sends the call to the backend once more
// (the sealed state says so, single use: mrtr.ts `again`). Otherwise the error goes on as -32603
// (ERR-3, route-replies.ts).
import { RPC } from '../errors.ts'
import { isJsonObject, type JsonObject, type JsonRpcErrorObject } from '../protocol/jsonrpc.ts'
import { RESULT_TYPE } from '../protocol/result.ts'
import { findUndeclaredCapability, sealAgainState, type StateSeal } from './mrtr.ts'

const ELICIT = 'elicitation/create'

// The error's URL elicitations as input requests, or undefined when any is malformed or the
// client cannot take it.
function urlInputRequests(error: JsonRpcErrorObject, clientCapabilities: JsonObject): JsonObject | undefined {
  const elicitations = isJsonObject(error.data) ? error.data.elicitations : undefined
  if (!Array.isArray(elicitations) || elicitations.length === 0) return undefined
  const requests: JsonObject = {}
  for (const [index, elicitation] of elicitations.entries()) {
    if (!isJsonObject(elicitation) || elicitation.mode !== 'url' || typeof elicitation.url !== 'string' || typeof elicitation.message !== 'string') return undefined
    if (findUndeclaredCapability(ELICIT, elicitation, clientCapabilities) !== undefined) return undefined
    // 2026-07-28 URL elicitation params are these three (elicitationId is the 2025-11-25 completion's).
    requests[`url-${index + 1}`] = { method: ELICIT, params: { mode: 'url', message: elicitation.message, url: elicitation.url } }
  }
  return requests
}

// The input round standing for a backend's -32042, or undefined when there is none to offer.
export function urlElicitationRound(error: JsonRpcErrorObject, clientCapabilities: JsonObject, seal: StateSeal): JsonObject | undefined {
  if (error.code !== RPC.legacyUrlElicitationRequired) return undefined
  const inputRequests = urlInputRequests(error, clientCapabilities)
  if (inputRequests === undefined) return undefined
  return { resultType: RESULT_TYPE.inputRequired, inputRequests, requestState: sealAgainState(seal) }
}
