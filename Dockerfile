# Tessera on the official Deno image. Data of the embedded store lives in /data (mount a volume there),
# or set MONGO_URL.
FROM denoland/deno:2.9.6
WORKDIR /app
COPY deno.json deno.lock ./
COPY . .
RUN deno cache main.ts && mkdir -p /data && chown deno:deno /data
ENV PORT=8000 KV_PATH=/data/tessera.kv
VOLUME ["/data"]
EXPOSE 8000
USER deno
CMD ["run", "--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "main.ts"]
