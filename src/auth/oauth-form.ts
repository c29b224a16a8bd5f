// One POST of an application/x-www-form-urlencoded body to an authorization server endpoint
// (token, introspection) as a confidential client with client_secret_basic (RFC 6749 §2.3.1), the
// reply read as a JSON object. Bounded like every request to an authorization server.
import type { Dispatcher } from 'undici'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { AuthHttpError, requestBounded } from './bounded-http.ts'

export interface OAuthClientCredentials {
  clientId: string
  clientSecret: string
}

export interface FormPost {
  url: string
  client: OAuthClientCredentials
  params: Record<string, string | undefined>
  timeoutMs?: number
}

export interface FormReply {
  status: number
  body: JsonObject
}

// RFC 6749 §2.3.1: both parts form-urlencoded before the Basic encoding.
export function basicAuthorization(client: OAuthClientCredentials): string {
  const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+')
  return `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`
}

export async function postForm(dispatcher: Dispatcher, post: FormPost): Promise<FormReply> {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(post.params)) if (value !== undefined) form.set(name, value)
  const reply = await requestBounded(dispatcher, {
    url: post.url,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: basicAuthorization(post.client) },
    body: form.toString(),
    timeoutMs: post.timeoutMs,
  })
  let body: unknown
  try {
    body = JSON.parse(reply.text)
  } catch (err) {
    throw new AuthHttpError('bad_reply', `${new URL(post.url).origin}: HTTP ${reply.status} reply is not JSON`, { cause: err })
  }
  if (!isJsonObject(body)) throw new AuthHttpError('bad_reply', `${new URL(post.url).origin}: HTTP ${reply.status} reply is not a JSON object`)
  return { status: reply.status, body }
}
