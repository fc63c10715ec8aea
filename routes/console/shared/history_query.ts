/** The paging of a history of decisions: how many a page lists, and the `?before=` it starts from. */

/** Decisions a history page lists at once; `before` pages to older ones. */
export const HISTORY_PAGE = 50;

/** An entry id (store/ids.ts): what `before` must be. */
const ENTRY_ID = /^[0-9a-f]{24}$/;

/** The `before` of a history page's address, when it is an entry id; anything else shows the newest. */
export const historyBefore = (given: string | undefined): string | undefined =>
  given !== undefined && ENTRY_ID.test(given) ? given : undefined;
