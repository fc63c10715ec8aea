# Tessera on the official Deno image. Data of the embedded store lives in /data (mount a volume there),
# or set MONGO_URL. Production mode: set TESSERA_CLIENTS and TESSERA_USERS (or AUTH_MODE=oidc); the demo
# credentials are refused at start unless ALLOW_DEMO_CREDENTIALS=true.
FROM denoland/deno:2.9.6
WORKDIR /app
COPY deno.json deno.lock ./
COPY . .
RUN deno cache main.ts && mkdir -p /data && chown deno:deno /data
ENV PORT=8000 KV_PATH=/data/tessera.kv
VOLUME ["/data"]
EXPOSE 8000
USER deno
# Liveness with what the image has (no curl or wget): deno itself fetches /healthz on the container's port.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:' + (Deno.env.get('PORT') || '8000') + '/healthz', { signal: AbortSignal.timeout(5000) }); Deno.exit(r.ok ? 0 : 1);"]
CMD ["run", "--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "main.ts"]
