/** The order of the region tables, as the page's address asks for it (`?sort=&dir=`). */

export const SORT_KEYS = [
  "default",
  "region",
  "n",
  "rate",
  "diff",
  "p",
  "flips",
  "diff_after",
  "p_after",
] as const;
export type SortKey = typeof SORT_KEYS[number];
export interface Sort {
  key: SortKey;
  dir: "asc" | "desc";
}

/** The order the page was asked for (`?sort=&dir=`), else significant first. */
export function sortOf(query: (k: string) => string | undefined): Sort {
  const key = (SORT_KEYS as readonly string[]).includes(query("sort") ?? "")
    ? query("sort") as SortKey
    : "default";
  return { key, dir: query("dir") === "desc" ? "desc" : "asc" };
}
