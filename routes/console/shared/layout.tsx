/**
 * The page frame every console page renders in: `<html lang>`, a `<title>`, the stylesheet and script
 * Tessera serves itself, a skip link, the navigation (signed in) and the main region. A new page passes
 * its `active` section; a new section is one entry in NAV.
 */
import type { Child, FC } from "hono/jsx";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { PostForm } from "./components.tsx";
import { can, RoleNotice } from "./role_notice.tsx";
import { assetUrl } from "./assets.ts";

/** The sections of the navigation, in order: the label is the link's accessible name. */
export const NAV = [
  { key: "tasks", label: "Tasks", href: "/console/tasks" },
  { key: "datasets", label: "Datasets", href: "/console/datasets" },
  { key: "cleaning", label: "Cleaning", href: "/console/cleaning" },
  { key: "valuation", label: "Valuation", href: "/console/valuation", needs: "reviewer" },
] as const;

export type Section = typeof NAV[number]["key"];

export interface LayoutProps {
  /** The page's own title; the document title is "<title> · Tessera". */
  title: string;
  /** The section the page belongs to (marked as the current one in the navigation). */
  active?: Section;
  /** The signed-in session: with it the navigation and "Sign out" show. */
  session?: ConsoleSession;
  /** `narrow`: a small centred card (sign-in). */
  width?: "wide" | "narrow";
  children?: Child;
}

export const Layout: FC<LayoutProps> = ({ title, active, session, width = "wide", children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · Tessera`}</title>
      <link rel="icon" href={assetUrl("favicon.svg")} type="image/svg+xml" />
      <link rel="stylesheet" href={assetUrl("console.css")} />
      <script type="module" src={assetUrl("console.js")}></script>
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <div class="top-inner">
          <a class="brand" href="/console/">
            <img src={assetUrl("favicon.svg")} alt="" width={22} height={22} />Tessera
          </a>
          {session && (
            <nav aria-label="Main">
              <ul>
                {NAV.filter((n) => !("needs" in n) || can(session, n.needs)).map((n) => (
                  <li>
                    <a href={n.href} aria-current={n.key === active ? "page" : undefined}>{n.label}</a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {session && (
            <PostForm action="/console/sign-out" session={session} needs={null} class="account">
              <span class="who" title={`Signed in as ${session.username}, ${session.role ?? "no role"}`}>
                {session.username}
              </span>
              <button type="submit" class="btn btn-quiet">Sign out</button>
            </PostForm>
          )}
        </div>
      </header>
      <main id="main" tabindex={-1} class={width === "narrow" ? "narrow" : undefined}>
        {session && <RoleNotice session={session} />}
        {children}
      </main>
    </body>
  </html>
);
