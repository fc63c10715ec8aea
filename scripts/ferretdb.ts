/**
 * A throwaway FerretDB (MongoDB wire protocol over SQLite) for the Mongo contract tests: no Docker, no
 * MongoDB install, only Go to build it once. The binary is cached per version; each start gets a fresh
 * data directory on a free port.
 */
import { join } from "node:path";
import { exists, freePort, run, spawnServer, waitUntil } from "./processes.ts";

const VERSION = "v1.24.2";
const MODULE = `github.com/FerretDB/FerretDB@${VERSION}`;
const START_TIMEOUT_MS = 30_000;
/**
 * Names our patched build (see `patchIdLookups` and `patchAtomicWrites`), so a plain v1.24.2
 * binary, or one with fewer patches, is never taken for it.
 */
const FLAVOUR = `${VERSION}-idfix-serialwrites`;

export interface FerretDB {
  url: string;
  stop(): Promise<void>;
}

/** Builds (once) and starts FerretDB on 127.0.0.1; `stop()` kills it and deletes its data. */
export async function startFerretDB(): Promise<FerretDB> {
  const bin = await ensureBinary();
  const dir = await Deno.makeTempDir({ prefix: "tessera-ferretdb-" });
  const port = freePort();
  const server = await spawnServer("ferretdb", dir, bin, {
    args: [
      "--handler=sqlite",
      `--sqlite-url=file:${dir}/?_pragma=synchronous(off)`, // a throwaway database needs no fsync
      `--state-dir=${dir}`,
      "--debug-addr=-",
      "--telemetry=disable",
      `--listen-addr=127.0.0.1:${port}`,
    ],
  }, (child) =>
    waitUntil(child, () => portOpen(port), {
      timeoutMs: START_TIMEOUT_MS,
      everyMs: 100,
      what: `port ${port} open`,
    }));
  return { url: `mongodb://127.0.0.1:${port}/`, stop: server.stop };
}

/** Where the built binary lives, so it is built once per machine, not once per run. */
export function binaryPath(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "tessera", `ferretdb-${FLAVOUR}`, "ferretdb");
}

/**
 * Builds from the module source: `go install ...@version` fails behind proxies that refuse `@v/list`,
 * and the plain module panics at start because its build/version/version.txt is empty, so we fill it.
 */
async function ensureBinary(): Promise<string> {
  const bin = binaryPath();
  if (await exists(bin, "file")) return bin;
  console.error(`Building FerretDB ${VERSION} into ${bin} (once; about a minute)...`);
  const env = { GOTOOLCHAIN: "local" };
  const info = JSON.parse(await run("go", ["mod", "download", "-json", MODULE], { env }));
  if (!info.Dir) throw new Error(`go mod download gave no directory: ${info.Error ?? JSON.stringify(info)}`);
  const work = await Deno.makeTempDir({ prefix: "tessera-ferretdb-src-" });
  try {
    const src = join(work, "src");
    await run("cp", ["-R", info.Dir, src]);
    await run("chmod", ["-R", "u+w", src]);
    await Deno.writeTextFile(join(src, "build", "version", "version.txt"), VERSION);
    await patchIdLookups(src);
    await patchAtomicWrites(src);
    await Deno.mkdir(join(bin, ".."), { recursive: true });
    // Build under a temporary name and rename: a killed build must not leave a broken binary behind.
    const tmp = `${bin}.${Deno.pid}.tmp`;
    await run("go", ["build", "-buildvcs=false", "-o", tmp, "./cmd/ferretdb"], { env, cwd: src });
    await Deno.rename(tmp, bin);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
  return bin;
}

/**
 * FerretDB 1.24's SQLite backend looks documents up by `sjson->'$._id'` while its unique _id index is
 * on `sjson->"_id"`; SQLite matches index expressions textually, so every update and delete by _id
 * scanned the whole table (100k updateOne on 100k documents: hours). `->'_id'` means the same JSON path
 * and matches the index. One of the two changes we make to FerretDB.
 */
async function patchIdLookups(src: string): Promise<void> {
  const file = join(src, "internal", "backends", "sqlite", "metadata", "metadata.go");
  const text = await Deno.readTextFile(file);
  const from = `IDColumn = DefaultColumn + "->'$._id'"`;
  if (!text.includes(from)) throw new Error(`FerretDB source changed; cannot patch ${file}`);
  await Deno.writeTextFile(file, text.replace(from, `IDColumn = DefaultColumn + "->'_id'"`));
}

/**
 * MongoDB applies findAndModify and each update atomically per document; FerretDB 1.24's SQLite
 * handler reads, then writes, outside one transaction (FerretDB issue #3040), so of several racing
 * compare-and-sets all could win (17 of 20 four-way races did), and two concurrent `$set`s of other
 * fields of one document lost one of them. Serializing both commands inside the server under one
 * mutex restores MongoDB's guarantee for the store's compareAndSet (job claims, leases, approvals) and
 * updateFields. The other change we make.
 */
async function patchAtomicWrites(src: string): Promise<void> {
  const dir = join(src, "internal", "handler");
  const serialize = async (name: string, call: string) => {
    const file = join(dir, name);
    const text = await Deno.readTextFile(file);
    if (!text.includes(call)) throw new Error(`FerretDB source changed; cannot patch ${file}`);
    // Held until the handler returns (the reply is built from values): a panic, which FerretDB recovers
    // per connection, then cannot leave it locked.
    const to = "\ttesseraWriteMu.Lock()\n\tdefer tesseraWriteMu.Unlock()\n" + call;
    await Deno.writeTextFile(file, text.replace(call, to));
  };
  await serialize("msg_findandmodify.go", "\tres, err := h.findAndModifyDocument(connCtx, params)\n");
  await serialize(
    "msg_update.go",
    "\tmatched, modified, upserted, err := h.updateDocument(connCtx, params)\n",
  );
  await Deno.writeTextFile(
    join(dir, "tessera_atomic.go"),
    [
      "package handler",
      'import "sync"',
      "// Serializes findAndModify and update (Tessera's test build).\nvar tesseraWriteMu sync.Mutex",
      "",
    ]
      .join("\n\n"),
  );
}

/** Whether the port accepts a TCP connection now. */
async function portOpen(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}
