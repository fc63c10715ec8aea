// Tessera review console, cleaning and valuation pages: a job's live progress, forms that say they are
// working (and are sent once), the correlation method kept in the address. Every page works without it.

// A running job's progress bar follows the job (one small request a second); once the job has ended the
// page reloads and shows its results. A session that ended meanwhile reloads into the sign-in page.
const live = document.querySelector("[data-job-progress]");
if (live) {
  const bar = live.querySelector("progress");
  const text = live.querySelector("[data-progress-text]");
  const tick = async () => {
    try {
      const res = await fetch(live.dataset.jobProgress, {
        headers: { accept: "application/json" },
        cache: "no-store",
      });
      const json = res.ok && (res.headers.get("content-type") ?? "").includes("json");
      const p = json ? await res.json() : null;
      if (!p || (p.status !== "queued" && p.status !== "running")) return void location.reload();
      bar.value = Math.round(p.progress * 100);
      bar.setAttribute("aria-valuetext", p.text);
      if (text.textContent !== p.text) text.textContent = p.text;
    } catch {
      // the server is out of reach for a moment: try again at the next tick
    }
    setTimeout(tick, 800);
  };
  setTimeout(tick, 800);
}

// A form with a busy message shows it while the request is under way, and is sent once: a second
// click while the first is under way does nothing (console.js does the same for every POST form).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || event.defaultPrevented) return;
  const busy = form.querySelector("[data-busy]");
  if (!busy) return;
  if (form.dataset.working === "true") return void event.preventDefault();
  form.dataset.working = "true";
  form.setAttribute("aria-busy", "true");
  busy.hidden = false;
  for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
    button.setAttribute("aria-disabled", "true");
  }
});

// Back to a page left while a form was under way: it can be sent again.
addEventListener("pageshow", () => {
  for (const form of document.querySelectorAll("form[data-working]")) {
    delete form.dataset.working;
    form.removeAttribute("aria-busy");
    const busy = form.querySelector("[data-busy]");
    if (busy) busy.hidden = true;
    for (const button of form.querySelectorAll("[aria-disabled]")) button.removeAttribute("aria-disabled");
  }
});

// The correlation method chosen with the switch stays in the address (a reload keeps it) and in the
// analysis form (analysing again keeps it).
for (const radio of document.querySelectorAll("input[name=corr-method]")) {
  radio.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("corr", radio.value);
    history.replaceState(null, "", url);
    const kept = document.querySelector("input[type=hidden][name=corr]");
    if (kept) kept.value = radio.value;
  });
}
