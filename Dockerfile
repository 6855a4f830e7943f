FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
ENV HOST=0.0.0.0 PORT=8080 GATEWAY_DB_URL=file:/data/gateway.db
# JavaScriptCore sizes its heap from the host's RAM, not the container's limit (README, "Memory").
ENV BUN_JSC_forceRAMSize=1073741824
VOLUME /data
EXPOSE 8080
CMD ["npx", "bun", "src/main.ts"]
