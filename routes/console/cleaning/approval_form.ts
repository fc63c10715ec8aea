/** The approve form as the `approval_info` the write-back reads. */
import type { JobRecord } from "../../../services/cleaning/job_queue.ts";

/** The approval_info keys the write-back reads, from the approve form (empty fields: the defaults). */
export function approvalInfoOf(job: JobRecord, f: Record<string, string>): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  const put = (key: string) => {
    const v = f[key]?.trim();
    if (v) info[key] = v;
  };
  if (job.task === "impute") {
    put("target");
    if (f.target === "new_fields") put("suffix");
  } else {
    put("flag_field");
    put("score_field");
  }
  put("comment");
  info.source = "console";
  return info;
}
