// The front's responses are node:http ServerResponses, or, for a request that came over HTTP/2,
// the compatibility layer's Http2ServerResponse (typed as the same by Fastify). Where the two
// differ, the handlers ask here:
// - `destroyed` exists on HTTP/1.1 only; an h2 response whose stream was reset by the client
//   (RST_STREAM) or closed has `stream.destroyed` instead.
// - `writableFinished` turns true on h2 when the stream closes, even unanswered: "the handler
//   answered" is `writableEnded` on both (used by the cancel-on-close checks, CANCEL-1).
import type { ServerResponse } from 'node:http'

export function isResponseClosed(res: ServerResponse): boolean {
  return res.destroyed || (res as { stream?: { destroyed: boolean } }).stream?.destroyed === true
}
