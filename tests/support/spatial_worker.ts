/**
 * The service's worker tasks plus "spatial.audit" (pool_tasks.ts), the whole audit in one worker: the
 * pool's spatial test compares it with the audit spread over the pool. The service itself never runs it.
 */
import { serveTasks } from "../../workers/protocol.ts";
import { TASKS } from "../../workers/tasks.ts";
import { AUDIT_TEST_TASKS } from "./pool_tasks.ts";

serveTasks({ ...TASKS, ...AUDIT_TEST_TASKS });
