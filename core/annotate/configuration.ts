/**
 * How a dataset's stored configuration (`POST /configuration`, field `methods`) feeds a run. `methods`
 * is free JSON; two shapes are read, any other is stored but gives no defaults:
 * - an object by function name: `{"concept_mapping": {"data_model_id": "WeatherObserved"}, "profile": {}}`
 * - a list of names or of `{"name": ..., "params": {...}}` objects: `["profile", {"name": ...}]`.
 * A non-empty list is also the set of functions the steward enabled: no other runs on the dataset.
 */

export type ParamsSource = "request" | "configuration" | "request+configuration" | "defaults";

/** The function names a list entry may carry its name under. */
const entryName = (m: unknown): unknown => isObject(m) ? m.name ?? m.function ?? m.annotation_function : m;

/**
 * The functions a dataset's `methods` enables, so a run of any other can be refused: the names of a
 * non-empty list; null (every function) for null, absent, an empty list or any other shape.
 */
export function enabledFunctions(methods: unknown): string[] | null {
  if (!Array.isArray(methods) || methods.length === 0) return null;
  return methods.map(entryName).filter((n): n is string => typeof n === "string");
}

/** The parameters `methods` configures for one function (null when it configures none). */
export function configuredParams(methods: unknown, fn: string): Record<string, unknown> | null {
  const asParams = (v: unknown) => (isObject(v) ? v : {});
  if (Array.isArray(methods)) {
    for (const m of methods) {
      if (m === fn) return {};
      if (isObject(m) && entryName(m) === fn) return asParams(m.params);
    }
    return null;
  }
  if (isObject(methods) && fn in methods) return asParams(methods[fn]);
  return null;
}

/**
 * The parameters of a run: the configured ones, overridden key by key by the request's. A request with
 * params null, absent or `{}` runs on the configuration alone.
 */
export function mergeParams(
  requested: unknown,
  configured: Record<string, unknown> | null,
): { params: unknown; source: ParamsSource } {
  const given = requested !== null && requested !== undefined &&
    !(isObject(requested) && Object.keys(requested).length === 0);
  const fromConfig = configured !== null && Object.keys(configured).length > 0;
  if (!given) return { params: configured ?? {}, source: fromConfig ? "configuration" : "defaults" };
  if (!fromConfig || !isObject(requested)) return { params: requested, source: "request" };
  return { params: { ...configured, ...requested }, source: "request+configuration" };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
