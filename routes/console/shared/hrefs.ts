/** The addresses of the console's pages that more than one area links to. */

/** A task's page (its spatial review). */
export const taskHref = (task: string) => `/console/tasks/${encodeURIComponent(task)}`;

/** A dataset's page. */
export const datasetHref = (name: string) => `/console/datasets/${encodeURIComponent(name)}`;
