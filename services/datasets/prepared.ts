/**
 * Prepared datasets: what an analysis derives from a dataset's rows (columns as typed arrays, region
 * membership, display hulls) kept in memory between requests, so the next audit, mitigation or map of an
 * unchanged dataset starts where the last one ended. Bounded by PREPARED_CACHE_MB: least recently used
 * first out, each eviction logged. An entry is named by the dataset's content version (generation and
 * revision of its registry record, registry.ts), which every import and every write of values changes, on
 * any instance sharing the store: a request reads the version first, so it never gets what an earlier
 * version left. Datasets without a version (rows written by other means) are never kept.
 */
import { LRUCache } from "lru-cache";
import { log } from "../../core/log.ts";
import type { CollectionRef } from "../../store/store.ts";

/** A value and the bytes it holds (its typed arrays, and an estimate for its strings and objects). */
export interface Sized<T> {
  value: T;
  bytes: number;
}

/** One dataset's content at one version: the prefix of every entry kept for it. */
export interface DatasetKey {
  ref: CollectionRef;
  /** registry.ts datasetVersion's `content`; null: not to be kept. */
  version: string | null;
}

/** What the cache holds now, for logs and tests. */
export interface PreparedStats {
  entries: number;
  bytes: number;
  budgetBytes: number;
  evictions: number;
  /** Look-ups that found their entry kept, and those that did not (and so read or built it). */
  hits: number;
  misses: number;
}

const MB = 1024 * 1024;

/** The in-memory cache of prepared datasets of one Tessera instance (see the module comment). */
export class PreparedDatasets {
  #lru: LRUCache<string, Sized<unknown>> | null;
  #building = new Map<string, Promise<unknown>>();
  /** The version last seen of each dataset, so entries of an older one go as soon as a newer one is seen. */
  #seen = new Map<string, string>();
  #evictions = 0;
  #hits = 0;
  #misses = 0;
  readonly budgetBytes: number;

  constructor(budgetMb: number) {
    this.budgetBytes = Math.floor(budgetMb * MB);
    this.#lru = this.budgetBytes > 0
      ? new LRUCache<string, Sized<unknown>>({
        maxSize: this.budgetBytes,
        sizeCalculation: (v) => Math.max(1, Math.ceil(v.bytes)),
        dispose: (v, key, reason) => {
          if (reason !== "evict") return;
          this.#evictions++;
          log("info", "prepared dataset evicted", { key, mb: round(v.bytes / MB), budget_mb: budgetMb });
        },
      })
      : null;
  }

  /**
   * The entry `part` of the dataset `key`: kept, or built once by `build` (concurrent requests for the
   * same entry share one build) and kept when it fits the budget. A failed build keeps nothing.
   */
  async get<T>(key: DatasetKey, part: string, build: () => Promise<Sized<T>>): Promise<T> {
    const name = this.#name(key, part);
    if (!name) return (await build()).value;
    const kept = this.#count(this.#lru!.get(name));
    if (kept) return kept.value as T;
    const pending = this.#building.get(name);
    if (pending) return await pending as T;
    const made = build().then((sized) => {
      if (sized.bytes > this.budgetBytes) {
        log("info", "prepared dataset over the cache budget, not kept", {
          key: name,
          mb: round(sized.bytes / MB),
          budget_mb: round(this.budgetBytes / MB),
        });
      } else if (this.#seen.get(datasetId(key.ref)) === key.version) this.#lru!.set(name, sized);
      return sized.value;
    }).finally(() => this.#building.delete(name));
    this.#building.set(name, made);
    return await made;
  }

  /** The entry `part` of the dataset `key` when kept (and then the most recently used), else undefined. */
  peek<T>(key: DatasetKey, part: string): T | undefined {
    const name = this.#name(key, part);
    return name ? this.#count(this.#lru!.get(name))?.value as T | undefined : undefined;
  }

  /** Keeps `sized` as the entry `part` of the dataset `key` (replacing it), when it fits the budget. */
  put<T>(key: DatasetKey, part: string, sized: Sized<T>): void {
    const name = this.#name(key, part);
    if (name && sized.bytes <= this.budgetBytes) this.#lru!.set(name, sized);
  }

  stats(): PreparedStats {
    return {
      entries: this.#lru?.size ?? 0,
      bytes: this.#lru?.calculatedSize ?? 0,
      budgetBytes: this.budgetBytes,
      evictions: this.#evictions,
      hits: this.#hits,
      misses: this.#misses,
    };
  }

  #count<V>(found: V | undefined): V | undefined {
    if (found) this.#hits++;
    else this.#misses++;
    return found;
  }

  /** The entry's name, or null when nothing is kept for it; drops the entries of older versions. */
  #name(key: DatasetKey, part: string): string | null {
    if (!this.#lru || key.version === null) return null;
    const id = datasetId(key.ref), before = this.#seen.get(id);
    if (before !== key.version) {
      this.#seen.set(id, key.version);
      if (before !== undefined) {
        for (const name of [...this.#lru.keys()]) if (name.startsWith(`${id}@`)) this.#lru.delete(name);
      }
    }
    return `${id}@${key.version}|${part}`;
  }
}

/** `cache.get(...)` where a cache is configured, else the value `build` makes. */
export async function keptOrBuilt<T>(
  cache: PreparedDatasets | undefined,
  key: DatasetKey,
  part: string,
  build: () => Promise<Sized<T>>,
): Promise<T> {
  return cache ? await cache.get(key, part, build) : (await build()).value;
}

const datasetId = (ref: CollectionRef) => JSON.stringify([ref.db, ref.collection]);
const round = (x: number) => Math.round(x * 10) / 10;

/** Bytes of the typed arrays in a value (nested objects and arrays, a few levels deep). */
export function typedBytes(value: unknown, depth = 0): number {
  if (depth > 4 || value === null || typeof value !== "object") return 0;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  // a list of strings (document ids) holds no typed array: not walked item by item
  if (Array.isArray(value) && typeof value[0] === "string") return 0;
  let sum = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) sum += typedBytes(v, depth + 1);
  return sum;
}
