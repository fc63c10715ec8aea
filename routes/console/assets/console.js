// Tessera review console: small progressive enhancements; every page works without them.

// A form is sent once: a second click while the first is under way does nothing, and the button says so.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || (form.getAttribute("method") ?? "get").toLowerCase() !== "post") {
    return;
  }
  if (form.dataset.sending === "true") {
    event.preventDefault();
    return;
  }
  form.dataset.sending = "true";
  form.setAttribute("aria-busy", "true");
  for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
    button.setAttribute("aria-disabled", "true");
  }
});

// Coming back with the browser's Back button shows the page as it was left: let its forms be sent again.
addEventListener("pageshow", () => {
  for (const form of document.querySelectorAll("form[data-sending]")) {
    delete form.dataset.sending;
    form.removeAttribute("aria-busy");
    for (const button of form.querySelectorAll("[aria-disabled]")) button.removeAttribute("aria-disabled");
  }
});
