/**
 * Roles in the console's views: `can` for a view that shows an action only to those who may take it, and
 * the notice that tells a viewer or a reviewer why a page shows fewer actions.
 */
import type { FC } from "hono/jsx";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { allows, type Role } from "../../../core/auth/roles.ts";
import { Notice } from "./components.tsx";

/** Whether the signed-in person may take an action that needs `role`. */
export const can = (session: ConsoleSession | undefined, role: Role) => allows(session?.role ?? null, role);

/** What each role below steward cannot do here, in words. */
const BEYOND: Record<"viewer" | "reviewer", string> = {
  viewer: "Running audits, mitigations, valuation, annotations and cleaning jobs needs the reviewer role; " +
    "importing, deleting, writing back, approving, undoing and changing a task's status need the steward role.",
  reviewer:
    "Importing, deleting, writing back, approving or rejecting, undoing and changing a task's status " +
    "need the steward role.",
};

/** Under the navigation for anyone below steward: their role, and why some actions are not shown. */
export const RoleNotice: FC<{ session: ConsoleSession }> = ({ session }) => {
  const role = session.role;
  if (role === "steward") return null;
  if (role === null) {
    return (
      <Notice kind="error" id="role-notice">
        Your account has no Tessera role (viewer, reviewer or steward), so the console shows you nothing. Ask
        whoever runs your identity provider to give you one.
      </Notice>
    );
  }
  return (
    <Notice kind="info" id="role-notice">
      You are signed in as a <strong>{role}</strong>, so parts of this console are read-only for you.{" "}
      {BEYOND[role]}
    </Notice>
  );
};
