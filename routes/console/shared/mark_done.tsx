/** "Mark done" on a task, shown in the task list and on the task's review page. */
import { PostForm } from "./components.tsx";
import { taskHref } from "./hrefs.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";

/** The form that marks a task done; `back` is the page it returns to. */
export const MarkDone = (
  { session, name, back, small }: { session: ConsoleSession; name: string; back: string; small?: boolean },
) => (
  <PostForm
    action={`${taskHref(name)}/done`}
    session={session}
    needs="steward"
    class="inline-form"
    hidden={{ back }}
  >
    <button type="submit" class={small ? "btn btn-secondary btn-small" : "btn btn-secondary"}>
      Mark done
    </button>
  </PostForm>
);
