# syntax=docker/dockerfile:1
#
# Junction: one image for every entry mode.
#   docker run IMAGE              -> api    (HTTP only, the default CMD)
#   docker run IMAGE worker       -> Temporal worker only, no HTTP
#   docker run IMAGE local        -> all in one
#   docker run IMAGE keys rotate dev|prod
#
# Debian slim, not alpine: the Temporal worker loads a native module from
# @temporalio/core-bridge that is built against glibc.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: dev dependencies, TypeScript compile, prebuilt workflow bundle ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci

COPY . .
# Produces dist/ (entry dist/src/main.js) and dist/workflow-bundle.js.
RUN npm run build

# ---- runtime: production dependencies and dist/ only ----
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app

ENV HOST=0.0.0.0 \
    PORT=3003 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464

COPY package.json package-lock.json ./
RUN npm ci --omit=dev \
    && npm cache clean --force

COPY --from=build /app/dist ./dist

# DATA_DIR (default .data, relative to /app) is only written in the local mode;
# give it to the non-root user so that mode works too.
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node

# 3003: HTTP API (api and local modes). 9464: Prometheus /metrics (every mode).
EXPOSE 3003 9464

# No HEALTHCHECK here: the same image runs the worker, which serves no /health.
# docker-compose.yml defines a healthcheck per service instead.
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["api"]
