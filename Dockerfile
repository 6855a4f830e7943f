FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
ENV HOST=0.0.0.0 PORT=8080 GATEWAY_DB_URL=file:/data/gateway.db
VOLUME /data
EXPOSE 8080
CMD ["npx", "bun", "src/main.ts"]
