/** A worker module for the pool's own tests: the tasks of pool_tasks.ts; it asks to be retired above 64 MB of WebAssembly memory. */
import { serveTasks } from "../../workers/protocol.ts";
import { POOL_TEST_TASKS } from "./pool_tasks.ts";

serveTasks(POOL_TEST_TASKS, 64 * 1024 * 1024);
