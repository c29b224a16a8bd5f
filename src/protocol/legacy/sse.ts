// SSE details of the 2025-11-25 transport (LEGACY-8, LEGACY-11). Pure.

// LEGACY-8: the first event of a POST's SSE stream: an event id and empty data. The id names the
// stream (LEGACY-11: unique in the session, identifies its stream) and is never a JSON-RPC message.
export function encodePrimingEvent(eventId: string): string {
  return `id: ${eventId}\ndata:\n\n`
}

// Event ids are `<stream tag>.<n>`; the tag is what a Last-Event-ID names.
export function primingEventId(streamTag: string): string {
  return `${streamTag}.0`
}
