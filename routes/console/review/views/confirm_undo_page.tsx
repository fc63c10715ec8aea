// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * The undo's confirmation (`GET …/writebacks/{writeback_id}/undo`): which field and run, how many
 * documents the write-back wrote, what the undo restores and skips, then "Undo write-back"; or, for a
 * write-back already undone, when and by whom, with nothing to send.
 */
import { Layout } from "../../shared/layout.tsx";
import { BackLink, Facts, Message, Panel, PostForm, Submit, When } from "../../shared/components.tsx";
import { type HistoryEntry, whoOf } from "../../shared/decision_history.tsx";
import { assetUrl } from "../../shared/assets.ts";
import { int } from "../formats.ts";
import { historyHref, runHref, undoHref } from "../hrefs.ts";
import { Stats } from "./review_parts.tsx";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export interface ConfirmUndoView {
  session: ConsoleSession;
  name: string;
  /** The write-back's log entry, and its undo's when it was undone. */
  entry: HistoryEntry;
  undo: HistoryEntry | null;
  /** Why the undo was refused (409), shown above the button. */
  error?: string;
}

export const ConfirmUndoPage = (v: ConfirmUndoView) => {
  const { entry: e, undo } = v;
  const n = (k: string) => e.counts[k] ?? 0;
  const back = historyHref(v.name);
  return (
    <Layout title={`Undo the write-back into ${e.field}`} active="tasks" session={v.session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <BackLink href={back} class="crumbs">Back to the history of {v.name}</BackLink>
      <h1>Undo the write-back</h1>
      <Panel
        id="confirm-title"
        class="confirm"
        title={
          <>
            Field <code>{e.field}</code> of <code>{v.name}</code>
          </>
        }
      >
        <Facts
          items={[
            [
              "Written",
              <>
                <When iso={e.at} /> by {whoOf(e)}
              </>,
            ],
            e.run_id !== null && [
              "Run",
              <a href={runHref(v.name, e.run_id)}>
                <code>{e.run_id}</code>
              </a>,
            ],
            ["Write-back", <code>{e.writeback_id}</code>],
          ]}
        />
        <Stats
          label="What the write-back wrote"
          items={[
            { label: "Documents matched", value: int(n("matched")), note: "each got the field" },
            { label: "Documents modified", value: int(n("modified")), note: "their value changed" },
          ]}
        />
        {undo
          ? (
            <Message
              kind="info"
              text={
                <>
                  Already undone <When iso={undo.at} /> by {whoOf(undo)}: {int(undo.counts.restored ?? 0)}
                  {" "}
                  documents restored, {int(undo.counts.skipped ?? 0)} skipped, {int(undo.counts.missing ?? 0)}
                  {" "}
                  missing. Nothing is left to undo.
                </>
              }
            />
          )
          : (
            <PostForm
              action={undoHref(v.name, e.writeback_id!)}
              session={v.session}
              needs="steward"
              labelledBy="undo-h"
            >
              <h3 id="undo-h">Undo this write-back?</h3>
              <p>
                Each document the write-back wrote gets back the value <code>{e.field}</code>{" "}
                had before it, or loses the field if it had none. A document whose <code>{e.field}</code>{" "}
                someone changed since is skipped: left as it is, and listed afterwards. Documents deleted
                since are counted as missing.
              </p>
              <Message kind="error" text={v.error} />
              <Submit label="Undo write-back" kind="danger" busy="Restoring the documents…">
                <a href={back}>Cancel</a>
              </Submit>
            </PostForm>
          )}
      </Panel>
    </Layout>
  );
};
