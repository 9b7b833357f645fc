// Comfort on every page (issue 20 item 10): the colour theme (the system's, or the one the
// toggle remembers), keyboard shortcuts, and focus kept on the control a swap replaced.
// Loaded in <head> without defer so the remembered theme applies before the first paint (the
// Content-Security-Policy refuses inline script); everything else waits for the document.
(function () {
  "use strict";
  const THEME_KEY = "agentops.theme";
  const THEMES = ["system", "dark", "light"];

  function storedTheme() {
    try { return window.localStorage.getItem(THEME_KEY) || "system"; } catch (error) { return "system"; }
  }

  function applyTheme(theme) {
    const root = document.documentElement;
    if (theme === "dark" || theme === "light") root.dataset.theme = theme;
    else delete root.dataset.theme;
    const toggle = document.getElementById("theme-toggle");
    if (toggle) {
      toggle.dataset.theme = theme;
      toggle.textContent = "Theme: " + theme;
      toggle.setAttribute("aria-label", "Colour theme: " + theme + " (change)");
    }
  }

  applyTheme(storedTheme());

  // --- focus kept across swaps ----------------------------------------------------------------
  // Before a request, remember the focused control and the ids around it; after the answer
  // was swapped in (by htmx or by the investigation script's parts), if focus fell to <body>,
  // give it back: the same control if it is still there, else its counterpart in the new
  // part (same name and value, or the first submit button), else the part itself.
  let remembered = null;

  function remember(element) {
    if (!element || element === document.body) return;
    const ids = [];
    for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
      if (node.id) ids.push(node.id);
    }
    remembered = {
      id: element.id, ids, tag: element.tagName,
      name: element.getAttribute("name"), value: element.getAttribute("value"),
    };
  }

  function lost() {
    const active = document.activeElement;
    return !active || active === document.body || !active.isConnected;
  }

  function counterpart(container) {
    if (remembered.name) {
      for (const candidate of container.querySelectorAll(remembered.tag + "[name]")) {
        if (candidate.getAttribute("name") === remembered.name
          && (remembered.value === null || candidate.getAttribute("value") === remembered.value)) return candidate;
      }
    }
    return remembered.tag === "BUTTON" ? container.querySelector("button[type=submit], button:not([type])") : null;
  }

  function restore() {
    if (!remembered || !lost()) return;
    let target = remembered.id ? document.getElementById(remembered.id) : null;
    for (const id of target ? [] : remembered.ids) {
      const container = document.getElementById(id);
      if (!container) continue;
      target = counterpart(container);
      if (!target) {
        target = container;
        if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      }
      break;
    }
    if (!target) return;
    // A decided approval moves into a folded list: unfold it, so focus lands on what was decided.
    for (let fold = target.closest("details:not([open])"); fold; fold = fold.parentElement.closest("details:not([open])")) {
      fold.open = true;
    }
    target.focus();
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    const active = document.activeElement;
    remember(active && active !== document.body ? active : event.detail.elt);
  });
  // On the document: after the page's own listeners on <body> applied the answer.
  document.addEventListener("htmx:afterRequest", () => window.setTimeout(restore, 0));
  document.addEventListener("htmx:afterSettle", restore);
  document.addEventListener("agentops:parts-applied", restore);

  // --- keyboard shortcuts ---------------------------------------------------------------------
  const ROWS = ".tool-row > details > summary, #incident-table tbody tr a, table.waterfall tbody tr a";
  let pendingG = false;

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function moveRow(step) {
    const rows = Array.from(document.querySelectorAll(ROWS)).filter((row) => row.offsetParent !== null);
    if (!rows.length) return;
    const index = rows.indexOf(document.activeElement);
    const next = rows[Math.min(rows.length - 1, Math.max(0, index < 0 ? 0 : index + step))];
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  }

  function toggleHelp() {
    const help = document.getElementById("shortcuts-help");
    if (!help) return;
    if (help.open) help.close(); else help.showModal();
  }

  function onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) return;
    const key = event.key;
    if (pendingG) {
      pendingG = false;
      if (key === "t") {
        const trace = document.querySelector("[data-shortcut=trace]");
        if (trace && trace.href) { event.preventDefault(); window.location.assign(trace.href); }
      }
      return;
    }
    if (key === "?") { event.preventDefault(); toggleHelp(); }
    else if (key === "/") {
      const search = document.querySelector("[data-shortcut=search], input[type=search]");
      if (search) { event.preventDefault(); search.focus(); search.select && search.select(); }
    } else if (key === "j") { event.preventDefault(); moveRow(1); }
    else if (key === "k") { event.preventDefault(); moveRow(-1); }
    else if (key === "g") { pendingG = true; window.setTimeout(() => { pendingG = false; }, 1500); }
  }

  function ready() {
    applyTheme(storedTheme());
    const toggle = document.getElementById("theme-toggle");
    if (toggle) {
      toggle.hidden = false;
      toggle.addEventListener("click", () => {
        const next = THEMES[(THEMES.indexOf(toggle.dataset.theme || "system") + 1) % THEMES.length];
        try { window.localStorage.setItem(THEME_KEY, next); } catch (error) { /* not remembered */ }
        applyTheme(next);
      });
    }
    const close = document.getElementById("shortcuts-close");
    if (close) close.addEventListener("click", () => document.getElementById("shortcuts-help").close());
    document.addEventListener("keydown", onKey);
  }

  // A server still connecting says how long it has been waiting (the connecting phase).
  window.setInterval(() => {
    for (const clock of document.querySelectorAll("time[data-since]")) {
      const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(clock.dataset.since)) / 1000));
      if (!Number.isNaN(seconds)) clock.textContent = seconds + " s";
    }
  }, 1000);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
