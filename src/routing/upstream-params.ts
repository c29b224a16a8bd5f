// Builds the params a backend receives (META-3, META-9): the client's params and _meta kept,
// with the keys the gateway owns per hop rewritten (protocolVersion, clientInfo).
import type { Backend } from '../upstream/backend.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { META, getMeta } from '../protocol/meta.ts'
import type { ServerInfo } from '../protocol/result.ts'
import { MODERN_VERSION } from '../protocol/version.ts'

export class UpstreamParamsBuilder {
  readonly #clientInfo: ServerInfo

  constructor(clientInfo: ServerInfo) {
    this.#clientInfo = clientInfo
  }

  #version(backend: Backend): string {
    return backend.status().protocolVersion ?? MODERN_VERSION
  }

  // Lists fetched by the gateway for its catalog: no client capabilities are needed.
  forList(backend: Backend, cursor: string | undefined): JsonObject {
    const params: JsonObject = {
      _meta: {
        [META.protocolVersion]: this.#version(backend),
        [META.clientCapabilities]: {},
        [META.clientInfo]: this.#clientInfo,
      },
    }
    if (cursor !== undefined) params.cursor = cursor
    return params
  }

  // A client's request forwarded: unknown _meta keys pass through unchanged (META-9).
  forCall(backend: Backend, clientParams: JsonObject, overrides: JsonObject = {}): JsonObject {
    const meta: JsonObject = {
      ...getMeta(clientParams),
      [META.protocolVersion]: this.#version(backend),
      [META.clientInfo]: this.#clientInfo,
    }
    return { ...clientParams, ...overrides, _meta: meta }
  }
}
