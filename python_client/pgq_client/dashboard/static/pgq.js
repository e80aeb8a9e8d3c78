// pgq dashboard: the only script (shipped in the package; the CSP allows no inline script).

// Forms with data-confirm ask before they post (bulk retry, cancel).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

// Times: <time datetime> shows UTC; its title gives the browser's local time, and .show-local adds it below.
function localTimes(root) {
  for (const el of root.querySelectorAll("time[datetime]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(at.getTime())) continue;
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local";
    const text = at.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "medium"}) + " your time (" + zone + ")";
    el.title = text;
    if (el.classList.contains("show-local") && !el.parentElement.querySelector(".local")) {
      const local = document.createElement("span");
      local.className = "local";
      local.textContent = text;
      const zoned = el.nextElementSibling;
      (zoned && zoned.classList.contains("zone") ? zoned : el).after(local);
    }
  }
}
localTimes(document);

// Auto-refresh: a page with <div id="page" data-refresh="N"> fetches itself every N seconds and swaps that
// part in place (scroll, the flash message and the header stay). Not while a form field there has focus or
// was changed, not while the tab is hidden; the header button pauses it (remembered in this browser).
(() => {
  const page = document.getElementById("page");
  const toggle = document.getElementById("refresh-toggle");
  const seconds = Number(page && page.dataset.refresh);
  if (!page || !toggle || !seconds) return;
  let paused = window.localStorage.getItem("pgq-refresh") === "off";
  let edited = false;
  let busy = false;
  const show = (note) => {
    toggle.textContent = paused ? "Auto-refresh: paused" : "Auto-refresh: every " + seconds + " s" + (note || "");
    toggle.setAttribute("aria-pressed", String(!paused));
    toggle.classList.toggle("off", paused);
  };
  toggle.hidden = false;
  show();
  toggle.addEventListener("click", () => {
    paused = !paused;
    window.localStorage.setItem("pgq-refresh", paused ? "off" : "on");
    show();
  });
  page.addEventListener("input", (event) => {
    if (event.target.closest("form")) edited = true;
  });
  const editing = () => {
    const active = document.activeElement;
    return edited || (active && page.contains(active) && active.matches("input, select, textarea"));
  };
  async function refresh() {
    if (paused || busy || document.hidden || editing()) return;
    busy = true;
    try {
      const answer = await fetch(window.location.href, {credentials: "same-origin", cache: "no-store"});
      if (!answer.ok) {
        show(" (last refresh: " + answer.status + ")");
        return;
      }
      const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
      const next = fresh.getElementById("page");
      if (!next || paused || editing()) return;
      const open = [...page.querySelectorAll("details[open][id]")].map((d) => d.id);
      page.replaceChildren(...next.childNodes);
      for (const id of open) {
        const details = document.getElementById(id);
        if (details) details.open = true;
      }
      const token = fresh.querySelector('meta[name="csrf-token"]');
      const mine = document.querySelector('meta[name="csrf-token"]');
      if (token && mine) mine.setAttribute("content", token.getAttribute("content"));
      localTimes(page);
      page.dataset.refreshed = String(Date.now());
      show();
    } catch (error) {
      show(" (last refresh failed)");
    } finally {
      busy = false;
    }
  }
  window.setInterval(refresh, seconds * 1000);
})();
