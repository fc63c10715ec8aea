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
