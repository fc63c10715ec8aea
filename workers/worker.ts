/** The module every pool worker runs: it serves the task table of `tasks.ts`. */
import { serveTasks } from "./protocol.ts";
import { TASKS } from "./tasks.ts";

serveTasks(TASKS);
