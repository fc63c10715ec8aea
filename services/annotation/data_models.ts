/**
 * The data-model catalog: one JSON file per model, the shipped ones in `catalog/models/` and any in
 * the folder MODELS_DIR names (a file there replaces a shipped model of the same id). Files are read
 * at each request, so a model dropped into the folder is served without a restart; a file that is not
 * a valid model is skipped, with one warning per version of the file.
 */
import { DataModel } from "../../core/annotate/data_model.ts";
import { log } from "../../core/log.ts";

const SHIPPED = new URL("../../catalog/models/", import.meta.url);
const warned = new Set<string>();

/** Every model of the catalog, by id. */
export async function listModels(extraDir?: string): Promise<DataModel[]> {
  const byId = new Map<string, DataModel>();
  for (const dir of [SHIPPED, ...(extraDir ? [extraDir] : [])]) {
    for (const model of await readFolder(dir)) byId.set(model.id, model);
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** The model with this id, or null. */
export async function findModel(extraDir: string | undefined, id: string): Promise<DataModel | null> {
  return (await listModels(extraDir)).find((m) => m.id === id) ?? null;
}

async function readFolder(dir: URL | string): Promise<DataModel[]> {
  const out: DataModel[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return warnOnce(`${dir}`, "the models folder does not exist"), out;
    throw e;
  }
  const base = typeof dir === "string" ? `${dir.replace(/\/$/, "")}/` : dir;
  for (const entry of entries.filter((e) => e.isFile && e.name.endsWith(".json")).sort(byName)) {
    const path = typeof base === "string" ? base + entry.name : new URL(entry.name, base);
    const text = await Deno.readTextFile(path);
    const version = `${path} (modified ${(await Deno.stat(path)).mtime?.toISOString()})`;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      warnOnce(version, `not JSON: ${(e as Error).message}`);
      continue;
    }
    const parsed = DataModel.safeParse(json);
    if (parsed.success) out.push(parsed.data);
    else warnOnce(version, parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  }
  return out;
}

const byName = (a: Deno.DirEntry, b: Deno.DirEntry) => a.name.localeCompare(b.name);

/** A warning line naming the request that met the file, once per file version (it is read per request). */
function warnOnce(path: string, why: string): void {
  const key = `${path}: ${why}`;
  if (warned.has(key)) return;
  warned.add(key);
  log("warn", "data-model catalog: skipping a file", { file: path, reason: why });
}
