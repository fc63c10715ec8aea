/**
 * How the benchmarks start the service: as `deno task dev` does (deno.json), its flags and permissions
 * included, from the repository's root, so a figure is that of the service a user starts.
 */

/** The repository's root (the directory of deno.json and main.ts). */
export const ROOT = new URL("..", import.meta.url).pathname;

/** The arguments `deno task dev` gives deno: `run`, its flags, `main.ts --dev`. */
export function devTaskArgs(): string[] {
  const { tasks } = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url)));
  const [deno, ...args] = String(tasks.dev).split(" ");
  if (deno !== "deno" || !args.includes("main.ts")) throw new Error(`unexpected dev task: ${tasks.dev}`);
  return args;
}
