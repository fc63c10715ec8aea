/** The addresses of the cleaning pages. */

/** The cleaning page: the jobs and the start form. */
export const CLEANING = "/console/cleaning";

/** A job's page. */
export const jobHref = (id: string) => `${CLEANING}/jobs/${encodeURIComponent(id)}`;
