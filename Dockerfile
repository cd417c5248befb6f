# syntax=docker/dockerfile:1
# Build stage: install all dependencies and check the types.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY supabase ./supabase
RUN npx tsc -p tsconfig.build.json

# Runtime stage: production dependencies and the compiled code, as a non-root user.
FROM node:22-bookworm-slim AS runtime
# MALLOC_ARENA_MAX: glibc gives each thread that allocates its own malloc arena and keeps what
# was freed in it; V8's compiler and GC threads and libuv's pool left 30-40 MB of such memory
# resident (docs/performance.md, Memory). Two arenas cost no measurable CPU here.
ENV NODE_ENV=production PORT=3000 PGLITE_DIR=/data/pglite MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY supabase ./supabase
# The embedded database's template: a new data directory starts from it instead of initdb.
COPY assets ./assets
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/main.js"]
