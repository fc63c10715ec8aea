/**
 * The service's worker tasks plus "spatial.audit", the whole audit in one worker: the pool's spatial
 * test compares it with the audit spread over the pool. The service itself never runs it.
 */
import { serveTasks } from "../../workers/protocol.ts";
import { TASKS } from "../../workers/tasks.ts";
import { type PreparePayload, scoped } from "../../workers/spatial.ts";
import { runAudit } from "../../core/spatial/audit.ts";

serveTasks({
  ...TASKS,
  "spatial.audit": (p: PreparePayload & { nWorlds: number; signifLevel: number }) => {
    const { scope, regions, labels } = scoped(p);
    return { audit: runAudit({ ...p, labels, regions }), regions, scope };
  },
});
