# syntax=docker/dockerfile:1
#
# Kindling's server image: `docker build -t kindling .`, then run it with DATABASE_URL, SECRETS_KEY
# and APP_URL (compose.yaml runs two behind a proxy, with PostgreSQL and an S3-compatible bucket).
# Node's current LTS line; the project itself runs on Node 20.19 and later (package.json engines).
ARG NODE_VERSION=24

# Build: every dependency (the build uses esbuild, Vite and its React plugin), then `npm run build`:
# the compiled server in dist/server and the client in dist/client.
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# The production dependencies alone, in a stage of their own so the image gets node_modules
# without npm's cache. The compiled server imports its npm packages from here (build-server.ts).
FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# package.json: the version the API docs show; drizzle/: the migrations and SQL functions, applied as
# the server starts; dist/: the compiled server and the built client. No sources.
COPY package.json ./
COPY drizzle ./drizzle
COPY --from=build /app/dist ./dist
# DATA_DIR: the embedded database and uploads when no DATABASE_URL or S3_BUCKET is given (mount a
# volume there to keep them), and the generated key when SECRETS_KEY is not set outside production
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# /livez answers while the process does (the database's state is /readyz's business, for the
# balancer). The slim image has no curl: Node's own fetch asks.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs the server itself (PID 1), so SIGTERM reaches its drain and shutdown (lifecycle.ts).
# --max-semi-space-size=32: a 32 MB young generation, as `npm start` (a third of the garbage-collection
# time per request, docs/benchmarks.md).
CMD ["node", "--max-semi-space-size=32", "dist/server/main.js"]
