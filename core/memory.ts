/**
 * Where long-lived typed arrays get their memory: plain buffers, or shared ones that several workers
 * read without a copy (a column ranked by one worker, paired by another).
 */
export type Alloc = (bytes: number) => ArrayBufferLike;

/** Plain memory of this thread (handed over to a worker by transfer, once). */
export const localAlloc: Alloc = (bytes) => new ArrayBuffer(bytes);

/** Shared memory: posting it to workers shares it instead of copying or detaching it. */
export const sharedAlloc: Alloc = (bytes) => new SharedArrayBuffer(bytes);

type Typed =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array;

/**
 * `value` with every typed array in shared memory (copied unless it is already), through plain
 * objects and arrays, because a result posted to several workers must be shared, not transferred.
 */
export function toShared<T>(value: T): T {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const a = value as unknown as Typed;
    if (a.buffer instanceof SharedArrayBuffer) return value;
    const Ctor = a.constructor as new (b: SharedArrayBuffer) => Typed;
    const out = new Ctor(new SharedArrayBuffer(a.byteLength));
    out.set(a as never);
    return out as unknown as T;
  }
  if (Array.isArray(value)) return value.map(toShared) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toShared(v)])) as T;
  }
  return value;
}

/**
 * `value` with every typed array copied into this thread's own memory: hot loops over shared memory
 * run measurably slower in V8, so a worker copies what it will read millions of times.
 */
export function toLocal<T>(value: T): T {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const a = value as unknown as Typed;
    return (a.buffer instanceof SharedArrayBuffer ? a.slice() : a) as unknown as T;
  }
  if (Array.isArray(value)) return value.map(toLocal) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toLocal(v)])) as T;
  }
  return value;
}
