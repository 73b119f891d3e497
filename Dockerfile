# Perch: one image for every role (PERCH_ROLE=all | api | worker). See docs/deployment.md.
#
#   docker build -t perch .
#   docker run -p 3000:3000 -v perch-data:/data perch     # embedded mode: SQLite in /data

ARG NODE_IMAGE=node:20-bookworm-slim

# Node plus what native modules (better-sqlite3) need to compile when no prebuilt binary fits.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Build: every dependency, then the shared package, the server (tsc, then its esbuild bundle)
# and the web app (Vite).
FROM toolchain AS build
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY packages/shared packages/shared
COPY apps/server apps/server
COPY apps/web apps/web
RUN npm run build

# The runtime tree: the server's production dependencies only (no TypeScript, tsx, Vite or the
# web app's React: the SPA is served prebuilt), and the build output of each workspace.
FROM toolchain AS runtime-tree
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
RUN npm ci --omit=dev --workspace=@perch/server --no-audit --no-fund \
  && npm cache clean --force
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/apps/server/dist apps/server/dist
COPY --from=build /app/apps/web/dist apps/web/dist

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only for the app; only DATA_DIR is written (SQLite, secret.key).
COPY --from=runtime-tree /app /app
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# Slim images have no curl: ask Node. /api/v1/health answers 503 when the database is down.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/v1/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# main.ts handles SIGTERM: finishes requests in flight, stops collection and delivery, exits.
CMD ["node", "apps/server/dist/bundle/main.js"]
