// The investigation page, live. The server renders a snapshot and the seq it reflects
// (data-last-seq); this opens the task's event stream right after it and applies every event
// exactly once, in seq order (an event with seq <= the last applied is ignored). EventSource sends
// Last-Event-ID itself when it reconnects, so the stream resumes where it broke off.
// Rows of the tool log are built here from events; the status, controls, approvals, verdict and
// feedback are re-rendered by the server (#parts) after the events that change them, and a
// fragment older than the one shown (data-seq) is never swapped in. Text is set with
// textContent only: every tool output is untrusted.
(function () {
  "use strict";
  const root = document.getElementById("investigation");
  if (!root) return;
  const connection = document.getElementById("stream-status");
  const KINDS = JSON.parse(root.dataset.kinds || "[]");
  const SPAN_LABELS = JSON.parse(root.dataset.spanLabels || "{}");
  const TERMINAL = new Set(["task_cancelled", "task_completed", "task_failed", "task_timed_out"]);
  // The people running the incident, and feedback: they come after the terminal event too, so
  // the stream follows on past it (?follow=1) and the parts (#coordination, #timeline) refresh.
  const COORDINATION = ["incident_status_changed", "incident_severity_changed",
    "incident_owner_changed", "incident_note_added", "feedback_given"];
  let taskDone = root.dataset.finished === "true";
  // Events after which the server-rendered parts are fetched again.
  // alert_received: a repeat of the alert group changed it (the alerts panel).
  const REFRESH = new Set(["task_started", "task_requeued", "task_cancelling", "approval_requested",
    "approval_decided", "tool_completed", "tool_failed", "agent_completed", "alert_received",
    "server_state", "steering_added", "steering_read", ...COORDINATION, ...TERMINAL]);
  let applied = Number(root.dataset.lastSeq || "0");
  let wanted = 0; // the newest seq the parts must reflect
  let source = null;

  function setConnection(text, mode) {
    connection.textContent = text;
    connection.dataset.mode = mode;
  }

  function stateLabel(state) { return state.replace(/_/g, " "); }

  function durationText(seconds) {
    const pad = (n) => String(n).padStart(2, "0");
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min " + pad(seconds % 60) + " s";
    return Math.floor(seconds / 3600) + " h " + pad(Math.floor((seconds % 3600) / 60)) + " min";
  }

  // --- server-rendered parts --------------------------------------------------------------

  function seqOf(element) { return Number((element && element.dataset.seq) || "0"); }

  function hypothesisConfidences() {
    const known = new Map();
    for (const card of document.querySelectorAll("#verdict [data-hypothesis]")) {
      known.set(card.dataset.hypothesis, Number(card.dataset.confidence));
    }
    return known;
  }

  // Cards say how they moved since the previous report this page saw (new, strengthened,
  // weakened). The last two distinct reports are kept per task in sessionStorage, so a
  // reload still compares with what was on screen before it; the server keeps only the
  // latest report (no event carries one).
  const REPORTS_KEY = "agentops.reports." + root.dataset.task;

  function loadReports() {
    try { return JSON.parse(window.sessionStorage.getItem(REPORTS_KEY) || "{}") || {}; }
    catch (error) { return {}; }
  }

  function saveReports(reports) {
    try { window.sessionStorage.setItem(REPORTS_KEY, JSON.stringify(reports)); }
    catch (error) { /* storage full or refused: the markers just start over */ }
  }

  function sameReport(a, b) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => has(b, key) && b[key] === a[key]);
  }

  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function markChanges() {
    const now = Object.create(null);
    for (const [id, confidence] of hypothesisConfidences()) now[id] = confidence;
    const reports = loadReports();
    if (!reports.last || !sameReport(reports.last, now)) {
      reports.previous = reports.last || null;
      reports.last = now;
      saveReports(reports);
    }
    const before = reports.previous;
    if (!before) return;
    for (const card of document.querySelectorAll("#verdict [data-hypothesis]")) {
      const slot = card.querySelector("[data-field=change]");
      const id = card.dataset.hypothesis;
      const confidence = Number(card.dataset.confidence);
      if (!slot || card.dataset.status === "ruled_out") continue;
      if (!has(before, id)) slot.textContent = "new";
      else if (confidence > before[id]) slot.textContent = "strengthened";
      else if (confidence < before[id]) slot.textContent = "weakened";
    }
  }

  // A swap must not fall between a press and its release: the browser sends the click to the
  // element the button went down on only if that element is still in the page, so a link
  // replaced mid-press (the evidence link as feedback_given refreshes #verdict) is never
  // followed. Parts that arrive during a press are held and applied, in order, once the click
  // (which comes after the release, in the same task) has been handled.
  const HOLD_MAX_MS = 10000;
  let pressed = false;
  let holdTimer = null;
  const held = [];

  function released() {
    pressed = false;
    window.setTimeout(applyHeld, 0);
  }

  document.addEventListener("pointerdown", () => { pressed = true; }, true);
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  // A release the page never heard of (outside the window, on a scrollbar): the next move
  // says no button is down, leaving the window says so too, and a hold ends after 10 s anyway.
  document.addEventListener("pointermove", (event) => { if (pressed && !event.buttons) released(); }, true);
  window.addEventListener("blur", released);

  function applyHeld() {
    if (pressed || !held.length) return;
    window.clearTimeout(holdTimer);
    holdTimer = null;
    delete root.dataset.partsHeld;
    for (const [html, carry] of held.splice(0)) swapParts(html, carry);
  }

  function applyParts(html, carry = true) {
    if (!pressed) { swapParts(html, carry); return; }
    held.push([html, carry]);
    root.dataset.partsHeld = "true";
    if (holdTimer === null) holdTimer = window.setTimeout(released, HOLD_MAX_MS);
  }

  // `carry`: keep what the page said in a part through a refresh. A form's own answer does not:
  // it says anew (a refused change's reason, or none once a change went through).
  function swapParts(html, carry) {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    for (const fresh of Array.from(holder.content.children)) {
      const current = fresh.id && document.getElementById(fresh.id);
      // The status line carries the seq of the last event applied to it (markStatus).
      if (!current || seqOf(fresh) < seqOf(current)) continue;
      // A part whose form is waiting for its answer stays: htmx swaps that answer into the part it
      // sent from, and a replaced part is detached, so the answer ("must not be blank") would be
      // lost. The answer is itself a fresh copy of the part; the next refresh brings the rest.
      if (current.matches(".htmx-request") || current.querySelector(".htmx-request")) continue;
      const focused = carryInput(current, fresh);
      if (carry) carryAnswers(current, fresh);
      current.replaceWith(fresh);
      if (window.htmx) window.htmx.process(fresh);
      if (focused) focused();
    }
    markChanges();
    linkArtifacts();
    tick();
    document.dispatchEvent(new Event("agentops:parts-applied")); // comfort.js gives focus back
  }

  // What a person is typing in a part (a steering note) survives the part's refresh, and so
  // does the focus and the caret: the fresh copy takes the value of each field with an id.
  function carryInput(current, fresh) {
    for (const field of current.querySelectorAll("textarea[id], input[id]:not([type=hidden]):not([type=radio]):not([type=checkbox])")) {
      const twin = fresh.querySelector("#" + CSS.escape(field.id));
      if (twin && field.value && twin.tagName === field.tagName) twin.value = field.value;
    }
    const active = document.activeElement;
    if (!active || !active.id || !current.contains(active)) return null;
    const start = active.selectionStart, end = active.selectionEnd;
    return () => {
      const twin = document.getElementById(active.id);
      if (!twin) return;
      twin.focus();
      if (typeof start === "number" && twin.setSelectionRange) twin.setSelectionRange(start, end);
    };
  }

  // A form's answer beside its field (`data-carry`: "must not be blank") stays until the person
  // acts again: the parts' refresh as calls finish would otherwise wipe it before it is read. The
  // form's next answer replaces the part, and the answer with it.
  function carryAnswers(current, fresh) {
    // What the page said to an action in the part (`data-kept`: "Copied", the clipboard
    // fallback shown) stays too: the fresh copy has it empty or hidden.
    for (const kept of current.querySelectorAll("[data-kept][id]")) {
      const twin = fresh.querySelector("#" + CSS.escape(kept.id));
      if (!twin) continue;
      if (kept.textContent && !twin.textContent.trim()) twin.textContent = kept.textContent;
      if (!kept.hidden) twin.hidden = false;
    }
    for (const kept of current.querySelectorAll("[data-carry][id]")) {
      if (fresh.querySelector("#" + CSS.escape(kept.id))) continue;
      const after = kept.nextElementSibling;
      const twin = after && after.id && fresh.querySelector("#" + CSS.escape(after.id));
      // No twin: the form it answered is gone (the diagnosis ended), and the answer with it.
      if (twin) twin.before(kept.cloneNode(true));
    }
  }

  // Rows whose full result went to artifact storage get its download link (the server lists
  // them in #artifact-links: the tool events do not say).
  function linkArtifacts() {
    for (const link of document.querySelectorAll("#artifact-links a[data-span]")) {
      const element = document.getElementById("tool-" + link.dataset.span);
      if (!element) continue;
      const anchor = field(element, "artifact-link");
      anchor.href = link.getAttribute("href");
      if (link.textContent) {
        anchor.textContent = "Download the full result (redacted JSON, " + link.textContent + " bytes)";
      }
      field(element, "artifact").hidden = false;
    }
  }

  let fetching = false;
  let fetchAgain = false;
  // A failed fetch is tried again with backoff, and at once when the browser is back online:
  // after the terminal event no other event would ask again, and the page would stay stale.
  const RETRY_FIRST_MS = 1000;
  const RETRY_MAX_MS = 30000;
  let retryDelay = 0;
  let retryTimer = null;

  function retryParts() {
    if (retryTimer !== null) return;
    retryDelay = retryDelay ? Math.min(retryDelay * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    retryTimer = window.setTimeout(() => { retryTimer = null; refreshParts(); }, retryDelay);
  }

  // The browser can say it is online while a fetch that will fail is still settling (the
  // network gave up, the promise has not yet rejected): that failure then asks again at once.
  let onlineWhileFetching = false;

  window.addEventListener("online", () => {
    if (fetching) { onlineWhileFetching = true; return; }
    if (retryTimer === null) return;
    window.clearTimeout(retryTimer);
    retryTimer = null;
    refreshParts();
  });

  function refreshParts() {
    if (fetching) { fetchAgain = true; return; }
    fetching = true;
    fetch(root.dataset.partsUrl, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
      .then((html) => {
        applyParts(html);
        fetching = false;
        onlineWhileFetching = false;
        retryDelay = 0;
        // An event arrived meanwhile; the server's answer always covers the event that asked
        // (a held answer too: it is applied once the press ends).
        if (fetchAgain || (!held.length && seqOf(document.getElementById("verdict")) < wanted)) {
          fetchAgain = false;
          refreshParts();
        }
      })
      .catch((status) => {
        fetching = false;
        fetchAgain = false;
        const online = onlineWhileFetching;
        onlineWhileFetching = false;
        // A refusal (4xx: logged out, gone) will not mend by asking again.
        if (typeof status === "number" && status >= 400 && status < 500) return;
        if (online) refreshParts();
        else retryParts();
      });
  }

  // Cancel and the approval decisions answer with the parts (hx-swap="none" + data-parts).
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const element = event.detail.elt;
    if (element && element.closest("[data-parts]") && event.detail.successful) {
      applyParts(event.detail.xhr.responseText, false);
    }
  });

  // --- Copy summary ------------------------------------------------------------------------
  // The texts are rendered by the server into <template id="share-…"> (diagnosis.pages.share);
  // #share is swapped with the parts, so the click is handled on the document. When the
  // browser refuses the clipboard, the text is shown selected for the person to copy.

  document.addEventListener("click", (event) => {
    const button = event.target.closest("#share [data-copy]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    const text = source ? source.content.textContent : "";
    const status = document.getElementById("share-status");
    const fallback = () => {
      const box = document.getElementById("share-fallback");
      const area = document.getElementById("share-fallback-text");
      area.value = text;
      box.hidden = false;
      area.focus();
      area.select();
      status.textContent = "Select and copy the text below";
    };
    if (!navigator.clipboard || !window.isSecureContext) { fallback(); return; }
    navigator.clipboard.writeText(text).then(() => {
      document.getElementById("share-fallback").hidden = true;
      status.textContent = "Copied " + (button.dataset.copy === "share-slack" ? "the summary" : "the Markdown");
    }, fallback);
  });

  // --- the status line ---------------------------------------------------------------------

  function markStatus(seq) {
    const status = document.getElementById("status");
    if (status) status.dataset.seq = String(seq);
  }

  function setState(state) {
    const badge = document.getElementById("task-state");
    if (!badge) return;
    badge.textContent = stateLabel(state);
    badge.dataset.state = state;
    badge.className = "state state-" + state;
  }

  function setPhase(agent) {
    const phase = document.getElementById("phase");
    if (phase) phase.textContent = agent || "—";
  }

  function updateChecking() {
    const checking = document.getElementById("checking");
    if (!checking) return;
    const running = Array.from(document.querySelectorAll(".tool-row[data-state=started]"))
      .map((row) => row.querySelector("[data-field=label]").textContent);
    checking.textContent = running.length ? "still checking " + running.join(", ") : "";
  }

  function tick() {
    const elapsed = document.getElementById("elapsed");
    if (elapsed && elapsed.dataset.started) {
      const end = elapsed.dataset.finished ? Date.parse(elapsed.dataset.finished) : Date.now();
      const seconds = Math.max(0, Math.floor((end - Date.parse(elapsed.dataset.started)) / 1000));
      elapsed.textContent = durationText(seconds);
    }
    for (const clock of document.querySelectorAll("[data-expires]")) {
      if (!clock.dataset.expires) continue;
      const left = Math.floor((Date.parse(clock.dataset.expires) - Date.now()) / 1000);
      clock.textContent = left > 0 ? "in " + durationText(left) : "expired (waiting for the reaper)";
    }
  }

  // --- the tool log --------------------------------------------------------------------------

  function field(row, name) { return row.querySelector("[data-field=" + name + "]"); }

  function group(agent) {
    for (const existing of document.querySelectorAll("#agent-groups .agent-group")) {
      if (existing.dataset.agent === agent) return existing;
    }
    const made = document.getElementById("agent-group-template").content.firstElementChild.cloneNode(true);
    made.dataset.agent = agent;
    made.setAttribute("aria-label", "calls of the " + agent + " agent");
    field(made, "agent").textContent = agent;
    document.getElementById("agent-groups").append(made);
    return made;
  }

  function spanUrl(spanId) {
    const id = encodeURIComponent(spanId);
    return root.dataset.traceUrl + "?span=" + id + "#span-" + id;
  }

  function setRowState(row, state) {
    row.dataset.state = state;
    const badge = field(row, "state");
    badge.textContent = SPAN_LABELS[state] || state;
    badge.className = "span-state span-" + state;
  }

  // The queued row of a call takes the span's id once an event of the call names its span.
  function adopt(element, spanId) {
    element.id = "tool-" + spanId;
    element.dataset.span = spanId;
    const link = field(element, "trace-link");
    link.href = spanUrl(spanId);
    link.hidden = false;
  }

  // A row per call: queued (tool_queued, by call_id) until its span is known, then by span. A
  // row the snapshot already shows is left as it is (the page applies events forward only:
  // the snapshot's spans may be ahead of its events, never behind).
  function row(data) {
    const bySpan = data.span_id && document.getElementById("tool-" + data.span_id);
    if (bySpan) return { element: bySpan, isNew: false };
    const byCall = data.call_id && document.getElementById("call-" + data.call_id);
    if (byCall) {
      if (data.span_id) adopt(byCall, data.span_id);
      return { element: byCall, isNew: false };
    }
    const made = document.getElementById("tool-row-template").content.firstElementChild.cloneNode(true);
    made.dataset.call = data.call_id || "";
    if (data.span_id) adopt(made, data.span_id);
    else made.id = "call-" + data.call_id;
    // What the call asked, as the trace labels it (call_labels.call_label, sent by the engine);
    // events from before labels existed fall back to the tool's name.
    const label = data.label || data.server + "." + data.tool;
    field(made, "label").textContent = label;
    field(made, "progress").setAttribute("aria-label", "progress of " + label);
    group(data.agent).querySelector(".tool-rows").append(made);
    document.getElementById("no-tool-calls").hidden = true;
    return { element: made, isNew: true };
  }

  function toolQueued(data) {
    const { element, isNew } = row(data);
    if (!isNew) return;
    setRowState(element, "queued");
    field(element, "why").textContent = data.why || "";
    field(element, "arguments").textContent = JSON.stringify(data.arguments || {}, null, 2);
  }

  // Calls still queued when their attempt ends never start (investigation.tool_rows too).
  function cancelQueued() {
    for (const element of document.querySelectorAll(".tool-row[data-state=queued]")) {
      setRowState(element, "cancelled");
    }
  }

  function toolStarted(data) {
    const { element, isNew } = row(data);
    if (!isNew && element.dataset.state !== "queued") return;
    setRowState(element, "started");
    field(element, "progress").hidden = false;
    field(element, "why").textContent = data.why || "";
    field(element, "arguments").textContent = JSON.stringify(data.arguments || {}, null, 2);
  }

  function toolProgress(data) {
    const { element } = row(data);
    if (element.dataset.state !== "started") return;
    const bar = field(element, "progress");
    if (typeof data.total === "number" && data.total > 0) {
      bar.max = data.total;
      bar.value = Math.min(data.progress, data.total);
    }
    // A task-backed call (MCP Tasks extension) shows its task's status and message.
    field(element, "progress-text").textContent = data.mcp_task_status
      ? "task " + data.mcp_task_status + (data.message ? ": " + data.message : "")
      : data.progress + (typeof data.total === "number" ? "/" + data.total : "") + (data.message ? " " + data.message : "");
  }

  function toolEnded(data) {
    const { element } = row(data);
    setRowState(element, data.state);
    field(element, "progress").hidden = true;
    field(element, "progress-text").textContent = "";
    if (typeof data.latency_ms === "number") {
      field(element, "duration").textContent = Math.round(data.latency_ms) + " ms";
    }
    // Cancelled is a state, not a layer (older events still name one).
    const layer = data.state === "cancelled" ? "" : data.error_layer;
    field(element, "error-layer").textContent = layer ? "⚠ " + layer + " layer" : "";
    const preview = data.preview || "";
    field(element, "preview").textContent =
      preview.length > 140 ? preview.slice(0, 139) + "…" : preview || data.error_code || "";
    field(element, "result").textContent = preview;
    if (data.error_code) field(element, "error").textContent = data.error_code;
  }

  // --- the stream ----------------------------------------------------------------------------

  function logEvent(seq, kind, data) {
    const item = document.createElement("li");
    item.dataset.seq = String(seq);
    const number = document.createElement("span");
    number.className = "seq";
    number.textContent = "#" + seq;
    const name = document.createElement("b");
    name.textContent = kind;
    const detail = document.createElement("span");
    detail.className = "muted";
    detail.textContent = " " + (data.agent || "") + (data.tool ? " " + data.server + "." + data.tool : "")
      + (data.to ? " → " + data.to : "");
    item.append(number, " ", name, detail);
    document.getElementById("events").append(item);
  }

  function finish(text) {
    if (source) source.close();
    setConnection(text, "closed");
  }

  function apply(kind, message) {
    const seq = Number(message.lastEventId);
    if (!seq || seq <= applied) return; // never twice
    applied = seq;
    const data = JSON.parse(message.data);
    logEvent(seq, kind, data);
    // A status line fetched after this event was appended already shows it.
    if (seq > seqOf(document.getElementById("status"))) {
      markStatus(seq);
      if (typeof data.to === "string") setState(data.to);
      if (kind === "task_started") {
        const elapsed = document.getElementById("elapsed");
        if (elapsed && !elapsed.dataset.started) elapsed.dataset.started = data.occurred_at;
      } else if (kind === "agent_started") {
        setPhase(data.agent);
      } else if (kind === "agent_completed") {
        const phase = document.getElementById("phase");
        if (phase && phase.textContent === data.agent) setPhase("");
      }
    }
    if (kind === "tool_queued") {
      toolQueued(data);
    } else if (kind === "tool_started") {
      toolStarted(data);
    } else if (kind === "tool_progress") {
      toolProgress(data);
    } else if (kind === "tool_completed" || kind === "tool_failed") {
      toolEnded(data);
    }
    if (kind === "task_requeued" || TERMINAL.has(kind)) cancelQueued();
    updateChecking();
    if (TERMINAL.has(kind)) {
      setPhase("");
      const elapsed = document.getElementById("elapsed");
      if (elapsed) elapsed.dataset.finished = data.occurred_at;
      taskDone = true;
      setConnection("finished · following the incident", "live");
    }
    if (REFRESH.has(kind)) {
      wanted = seq;
      refreshParts();
    }
  }

  // An earlier diagnosis's page: status, severity, owner and notes are events of the
  // incident's latest diagnosis, so that stream is followed too, for them alone (from the seq
  // the page was rendered at; EventSource resumes it with Last-Event-ID).
  function followIncident() {
    const url = root.dataset.incidentEventsUrl;
    if (!url) return;
    const incident = new EventSource(url + "?follow=1&last_event_id=" + Number(root.dataset.incidentFrom || "0"));
    for (const kind of COORDINATION) incident.addEventListener(kind, () => refreshParts());
  }

  function connect() {
    source = new EventSource(root.dataset.eventsUrl + "?follow=1&last_event_id=" + applied);
    let broken = false;
    for (const kind of KINDS) source.addEventListener(kind, (message) => apply(kind, message));
    source.addEventListener("resync_required", () => window.location.reload());
    source.addEventListener("server_draining", () => setConnection("reconnecting… (server restarting)", "reconnecting"));
    source.onopen = () => {
      if (taskDone) setConnection("finished · following the incident", "live");
      else setConnection(broken ? "live, resumed from #" + applied : "live", "live");
      broken = false;
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // A 204 (the task ended and this page has every event) or a refusal: EventSource
        // will not retry, so show the parts as they are now.
        finish(root.dataset.finished === "true" ? "finished" : "closed");
        refreshParts();
      } else {
        broken = true;
        setConnection("reconnecting…", "reconnecting");
      }
    };
  }

  markChanges();
  tick();
  window.setInterval(tick, 1000);
  if (taskDone) setConnection("finished", "closed");
  connect();
  followIncident();
})();
