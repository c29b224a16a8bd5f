// N gateway processes sharing one Redis and one state secret, behind a real nginx (round robin, no
// affinity): the production shape of README "Running N replicas", started by the test itself.
// Skips (with how to install) when redis-server or nginx is missing.
import type { Test } from 'tap'
import { startGatewayProcess, writeConfig, type GatewayProcess } from './gateway-process.ts'
import { startNginx, NGINX_MISSING, type Nginx } from './nginx.ts'
import { hasBinary, REDIS_MISSING, startRedis, type RedisServer } from './redis-server.ts'

export const SECRET = 'replicas-share-this-secret-0123456789'

export interface Replicas {
  redis: RedisServer
  gateways: GatewayProcess[]
  lb: Nginx
  // "127.0.0.1:port" of each gateway, as nginx names it in X-Replica.
  addresses: string[]
}

// Why the replica tests cannot run here, or undefined.
export function replicaTestsMissing(): string | undefined {
  if (!hasBinary('redis-server')) return REDIS_MISSING
  if (!hasBinary('nginx')) return NGINX_MISSING
  return undefined
}

export async function startReplicas(t: Test, config: Record<string, unknown>, count = 3, env: Record<string, string> = {}): Promise<Replicas> {
  const redis = await startRedis(t)
  const path = writeConfig(config)
  const gateways = await Promise.all(Array.from({ length: count }, () => startGatewayProcess(t, path, { MCP_GATEWAY_STATE_SECRET: SECRET, MCP_GATEWAY_REDIS_URL: redis.url, ...env })))
  await Promise.all(gateways.map((gw) => gw.waitForLine(/redis: connected/)))
  const addresses = gateways.map((gw) => new URL(gw.url).host)
  const lb = await startNginx(t, addresses)
  return { redis, gateways, lb, addresses }
}
