/** The review console's steps of bench/http_end_to_end.ts: sign in, the task's page, a run's page. */
import { type Answer, request } from "./requests.ts";
import type { Session } from "./session.ts";

/** Signs in through the console's form and times the task's page and a run's (the audit's, else a mitigation's). */
export async function consoleSteps(s: Session, auditRun: string, mitigationRun: string): Promise<void> {
  const { svc, name, step, lastRow } = s;
  const origin = svc.base;
  const signIn = await step("console sign-in", () =>
    request(`${svc.base}/console/sign-in`, {
      method: "POST",
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "demo", password: "demo" }),
    }));
  const cookie = signIn?.headers.getSetCookie().map((c) => c.split(";")[0])
    .find((c) => c.startsWith("tessera_session="));
  if (signIn && (!cookie || signIn.status !== 303)) {
    lastRow().status = `${signIn.status}, no session cookie`;
    lastRow().seconds = null;
  } else if (cookie) {
    const page = (path: string) => () => request(`${svc.base}${path}`, { headers: { cookie } });
    /** A page is the one asked for: 200, and it names the task (not the sign-in page, not an error). */
    const checkPage = (a: Answer | null) => {
      if (a && (a.status !== 200 || !a.text.includes(name))) {
        lastRow().seconds = null;
        lastRow().status = `${a.status} ${a.headers.get("location") ?? "without the task's name"}`;
      }
    };
    checkPage(await step("console task page", page(`/console/tasks/${name}`)));
    const run = auditRun || mitigationRun;
    if (run) {
      checkPage(
        await step(
          `console ${auditRun ? "audit" : "mitigation"} run page`,
          page(`/console/tasks/${name}/runs/${run}`),
        ),
      );
      checkPage(await step("console task page again", page(`/console/tasks/${name}`)));
    }
  }
}
