# syntax=docker/dockerfile:1
# mcp-gateway: Node 24 runs the TypeScript sources directly (type stripping), so there is no
# build step; the only thing to prepare is the production node_modules.
#
#   docker build -t mcp-gateway .
#   docker run --rm --init --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
#     --memory 1536m --pids-limit 256 -p 8080:8080 \
#     -v "$PWD/secrets/state_secret:/run/secrets/mcp_gateway_state_secret:ro" \
#     -e MCP_GATEWAY_STATE_SECRET_FILE=/run/secrets/mcp_gateway_state_secret \
#     -e MCP_GATEWAY_ALLOWED_HOSTS=localhost,127.0.0.1,mcp.example.com mcp-gateway
#
# --init (or tini as the entrypoint) matters: PID 1 then reaps the stdio backends' processes and,
# when the gateway dies however it dies, the container ends and takes every process with it. The
# gateway writes nothing but logs (stdout), so the root file system can be read-only.
# With no MCP_GATEWAY_CONFIG the gateway fronts the bundled @modelcontextprotocol/server-everything
# over stdio (the embedded default); mount a JSON file and set MCP_GATEWAY_CONFIG to use your own.

# ---- BASE IMAGE: PIN IT --------------------------------------------------------------------------
# NOT PINNED: no registry is reachable where this file was written, so the digest of the current
# node:24-bookworm-slim could not be looked up. Pin it by digest for reproducible, tamper-evident
# builds: `docker buildx imagetools inspect node:24-bookworm-slim` (or
# `skopeo inspect --raw docker://node:24-bookworm-slim | sha256sum`) gives the index digest, then
#   docker build --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:<index digest> .
# or write it here, and let Dependabot/Renovate keep it current.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- deps: production dependencies only ------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# --omit=dev leaves out the `node` dev dependency (the only package with an install script, the
# one "allowScripts" permits), so no lifecycle script is needed here: --ignore-scripts makes sure.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier

# ---- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    MCP_GATEWAY_HOST=0.0.0.0 \
    MCP_GATEWAY_PORT=8080
# Behind a load balancer the Host header is the public name: allow it at run time, e.g.
#   -e MCP_GATEWAY_ALLOWED_HOSTS=mcp.example.com -e MCP_GATEWAY_ALLOWED_ORIGINS=https://app.example.com
# (defaults: localhost, 127.0.0.1, [::1]). Replicas must share one state secret: mount it as a file
# and set MCP_GATEWAY_STATE_SECRET_FILE (a value in the environment can be read from /proc by a
# stdio backend running as the same user).

# Only what runs; owned by root, so the service user cannot modify its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes

USER node
EXPOSE 8080
# No curl in slim images: probe /livez with node itself (fetch is built in).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MCP_GATEWAY_PORT || 8080) + '/livez', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM starts the graceful drain (MCP_GATEWAY_SHUTDOWN_TIMEOUT_MS, default 10 s): give
# `docker stop` / Kubernetes a longer grace period than that.
STOPSIGNAL SIGTERM
CMD ["node", "src/server.ts"]
