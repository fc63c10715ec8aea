/** The cleaning jobs' computation, as the worker pool runs it (the job runner in services/cleaning/job_runner.ts calls it). */
import type { TaskTable } from "../protocol.ts";
import { type CleaningInput, runCleaning } from "../../core/cleaning/run.ts";

/** Entries for workers/tasks.ts. */
export const CLEANING_TASKS = {
  "cleaning.run": (input: CleaningInput) => runCleaning(input),
} satisfies TaskTable;
