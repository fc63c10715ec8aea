/** The delete's confirmation step: what will be removed, and the button that removes it. */
import { Layout } from "../../shared/layout.tsx";
import { BackLink, Message, PostForm, Submit } from "../../shared/components.tsx";
import { datasetHref } from "../../shared/hrefs.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";

export const ConfirmDeletePage = (
  { session, dataset }: { session: ConsoleSession; dataset: DatasetRecord },
) => (
  <Layout title={`Delete ${dataset.dataset_name}`} active="datasets" session={session}>
    <BackLink href={datasetHref(dataset.dataset_name)}>{dataset.dataset_name}</BackLink>
    <h1>Delete {dataset.dataset_name}?</h1>
    <Message
      kind="info"
      text={
        <>
          All {dataset.rows.toLocaleString("en")} rows of <code>{dataset.database}.{dataset.collection}</code>
          {" "}
          and the dataset's record will be removed. This cannot be undone.
        </>
      }
    />
    <PostForm
      action={`${datasetHref(dataset.dataset_name)}/delete`}
      session={session}
      needs="steward"
      hidden={{ confirm: "yes" }}
    >
      <Submit label="Confirm delete" kind="danger">
        <a href={datasetHref(dataset.dataset_name)}>Cancel</a>
      </Submit>
    </PostForm>
  </Layout>
);
