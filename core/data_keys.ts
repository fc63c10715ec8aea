/**
 * Reading and writing fields whose names come from data (a column, a document's field, a field a request
 * names). A plain object inherits `constructor`, `toString`, `valueOf`, ... from Object.prototype, so
 * `row[name]` finds a function in a row without that field. And where Object.prototype keeps its
 * `__proto__` accessor (Deno deletes it; browsers and Node keep it), `row["__proto__"] = v` would change
 * the prototype instead of adding a field. These helpers see and write own fields only, in any engine.
 */

/** The object's own field `key`, or undefined when it has none (never an inherited member). */
export function own(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Sets the own field `key`, `__proto__` included (as JSON.parse and object spread do). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else obj[key] = value;
}
