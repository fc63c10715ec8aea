/**
 * The record of each spatial write-back (`writebacks`, id = `writeback_id`) and its pages of previous
 * values (`writeback_pages`): what makes a write-back undoable and a crashed one roll back.
 */
import type { CollectionRef } from "../../store/store.ts";

/** Where write-backs are recorded. */
export const writebacksRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "writebacks",
});

/** Where their previous values are kept, written before the values they protect. */
export const writebackPagesRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "writeback_pages",
});
