/** The write-back's confirmation: how many records get the field, how many change, then "Confirm". */
import { Layout } from "../../shared/layout.tsx";
import { BackLink, Message, Panel, PostForm } from "../../shared/components.tsx";
import { assetUrl } from "../../shared/assets.ts";
import { int } from "../formats.ts";
import { runHref, writebackHref } from "../hrefs.ts";
import { Stats } from "./review_parts.tsx";
import type { WritebackPlan } from "../../../../services/mitigation/writeback.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export const ConfirmPage = (
  v: { session: ConsoleSession; name: string; run: string; field: string; plan: WritebackPlan; kind: string },
) => {
  const keep = v.plan.records - v.plan.changed;
  return (
    <Layout title={`Write back into ${v.field}`} active="tasks" session={v.session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <BackLink href={`${runHref(v.name, v.run)}#writeback`} class="crumbs">Back to the run</BackLink>
      <h1>Confirm the write-back</h1>
      <Panel
        id="confirm-title"
        class="confirm"
        title={
          <>
            Field <code>{v.field}</code> of <code>{v.name}</code>
          </>
        }
      >
        <Stats
          label="What will be written"
          items={[
            {
              label: "Records that get the field",
              value: int(v.plan.records),
              note: v.kind === "threshold" ? "the test part of the run" : "every individual the run judged",
            },
            {
              label: "Change from the original prediction",
              value: int(v.plan.changed),
              note: `${int(keep)} keep their prediction`,
            },
          ]}
        />
        {v.plan.replaces && (
          <Message
            kind="info"
            text={
              <>
                An earlier write-back of this task created <code>{v.field}</code>: its values are replaced.
              </>
            }
          />
        )}
        <PostForm
          action={writebackHref(v.name, v.run)}
          session={v.session}
          needs="steward"
          class="form-actions"
          hidden={{ new_field: v.field }}
        >
          <button type="submit" class="btn" data-busy="Writing…">Confirm</button>
          <a href={`${runHref(v.name, v.run)}#writeback`}>Cancel</a>
        </PostForm>
      </Panel>
    </Layout>
  );
};
