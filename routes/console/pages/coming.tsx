/**
 * Sections whose pages are not built yet (cleaning, valuation): they render in the layout, so the
 * navigation works everywhere, and say what will be there.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../env.ts";
import { Layout, type Section } from "../layout.tsx";
import { Notice, render } from "../components.tsx";

const COMING: Partial<Record<Section, { title: string; what: string }>> = {
  cleaning: {
    title: "Cleaning",
    what: "Cleaning jobs (imputation and anomaly detection): the list of jobs, a form to start one, " +
      "its progress, its results, and Approve / Reject.",
  },
  valuation: {
    title: "Valuation",
    what:
      "Data valuation of a dataset: the correlation heatmap (Pearson, Spearman, Kendall) and the feature " +
      "importance of each model with its accuracy.",
  },
};

/** The page of a section still to come. */
export function comingPage(section: Section) {
  const page = COMING[section];
  if (!page) throw new Error(`no coming page for ${section}`);
  return (c: Context<ConsoleEnv>) =>
    render(
      c,
      <Layout title={page.title} active={section} session={c.var.session}>
        <h1>{page.title}</h1>
        <Notice kind="info">
          <p>This page is coming. It will show: {page.what}</p>
        </Notice>
        <p>
          Until then the same work is available through the JSON API (<code>/docs</code>, with a bearer
          token).
        </p>
      </Layout>,
    );
}
