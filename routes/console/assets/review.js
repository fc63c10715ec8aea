// Tessera review console, the spatial review: says that long work is running. console.js already keeps
// a form from being sent twice (its second submit is cancelled before this runs); the page works without.

document.addEventListener("submit", (event) => {
  const form = event.target;
  const button = event.submitter;
  if (!(form instanceof HTMLFormElement) || event.defaultPrevented || !button?.dataset?.busy) return;
  button.dataset.idle = button.textContent;
  button.textContent = button.dataset.busy;
  form.classList.add("running");
  const status = form.querySelector("[data-busy-status]");
  if (status) status.textContent = `${button.dataset.busy} ${status.dataset.note ?? ""}`.trim();
});

// Back to a page left while it ran: the buttons say what they do again.
addEventListener("pageshow", () => {
  for (const button of document.querySelectorAll("[data-idle]")) {
    button.textContent = button.dataset.idle;
    delete button.dataset.idle;
  }
  for (const form of document.querySelectorAll("form.running")) form.classList.remove("running");
  for (const status of document.querySelectorAll("[data-busy-status]")) status.textContent = "";
});

// A relabel or threshold can be cancelled while it runs (review_cancel.tsx): the form names its run with the
// page's run id, the Cancel button appears, and the status line follows the run's phase and its solver's
// best objective and bound. Cancel posts with fetch, so the page keeps waiting for the mitigation's own
// answer, which then says that it was cancelled.
const cancel = document.querySelector("form.cancel-run");
const actions = document.querySelector(".cancel-run-actions");
if (cancel && actions) {
  const button = actions.querySelector("button");
  let following = false;

  const describe = (p) => {
    const num = (x) => Number(x.toPrecision(5));
    const parts = [p.phase];
    if (p.objective !== null) parts.push(`objective ${num(p.objective)}`);
    if (p.bound !== null) parts.push(`bound ${num(p.bound)}`);
    return `Now: ${parts.join(", ")}.`;
  };

  const follow = (status, busy) => {
    const tick = async () => {
      if (!following) return;
      try {
        const res = await fetch(cancel.dataset.progress, {
          headers: { accept: "application/json" },
          cache: "no-store",
        });
        const json = res.ok && (res.headers.get("content-type") ?? "").includes("json");
        const p = json ? await res.json() : null;
        const text = p?.state === "running" ? `${busy} ${describe(p)}` : null;
        if (following && status && text && status.textContent !== text) status.textContent = text;
      } catch {
        // out of reach for a moment: try again at the next tick
      }
      setTimeout(tick, 800);
    };
    setTimeout(tick, 800);
  };

  const ready = () => {
    delete cancel.dataset.cancelling;
    delete cancel.dataset.sending; // console.js marked it sent
    cancel.removeAttribute("aria-busy");
    button.removeAttribute("aria-disabled");
    button.textContent = "Cancel";
  };

  document.addEventListener("submit", (event) => {
    const form = event.target;
    const sent = event.submitter?.value;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("review-form")) return;
    if (event.defaultPrevented || (sent !== "relabel" && sent !== "threshold")) return;
    let field = form.querySelector("input[name=run_id]");
    if (!field) {
      field = Object.assign(document.createElement("input"), { type: "hidden", name: "run_id" });
      form.append(field);
    }
    field.value = cancel.dataset.runId;
    ready(); // console.js marked every button of the sent form, this one too
    actions.hidden = false;
    following = true;
    follow(form.querySelector("[data-busy-status]"), event.submitter.dataset.busy ?? "");
  });

  cancel.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (cancel.dataset.cancelling) return;
    cancel.dataset.cancelling = "true";
    button.textContent = "Cancelling…";
    button.setAttribute("aria-disabled", "true");
    const body = new URLSearchParams(new FormData(cancel));
    // the run is named at once, but the first click may come before its request has listed it
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const res = await fetch(cancel.action, { method: "POST", body, redirect: "manual" });
        if (res.type === "opaqueredirect" || res.ok) return; // its own answer follows, saying so
        if (res.status !== 404) break;
      } catch {
        // out of reach for a moment: try again
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    ready();
    const status = document.querySelector(".review-form [data-busy-status]");
    if (status) status.textContent = "It could not be cancelled: it may have finished already.";
  });

  // Back to a page left while it ran: nothing runs from it.
  addEventListener("pageshow", () => {
    following = false;
    actions.hidden = true;
    ready();
  });
}
