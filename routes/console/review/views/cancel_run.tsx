/**
 * A running mitigation's Cancel on the review page. The settings form is a plain POST that waits for the
 * mitigation's answer, so the run must be named before it starts: the page carries a fresh run id
 * (`CancelRunForm`), which review.js adds to the form as `run_id` when "Relabel" or "Thresholds" is sent,
 * then shows the Cancel button (`CancelButton`: inside the settings form, above its status line, but the
 * Cancel form's through its `form` attribute) and follows the run's progress. Without JavaScript there is
 * no button: the form runs to its end as before.
 */
import type { FC } from "hono/jsx";
import { Csrf } from "../../shared/components.tsx";
import { runHref } from "../hrefs.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

/** The id of the Cancel form, which its button names. */
const FORM_ID = "cancel-run";

/** The Cancel form of the next mitigation the page sends: its run, its progress, no control of its own. */
export const CancelRunForm: FC<{ task: string; runId: string; session: ConsoleSession }> = (p) => (
  <form
    method="post"
    action={`${runHref(p.task, p.runId)}/cancel`}
    id={FORM_ID}
    class="cancel-run"
    data-run-id={p.runId}
    data-progress={`${runHref(p.task, p.runId)}/progress`}
  >
    <Csrf session={p.session} />
  </form>
);

/** The Cancel form's button, placed in the settings form and hidden until review.js shows it. */
export const CancelButton: FC = () => (
  <div class="form-actions cancel-run-actions" hidden>
    <button type="submit" form={FORM_ID} class="btn btn-secondary">Cancel</button>
  </div>
);
