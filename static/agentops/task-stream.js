// Live events of one task over SSE. EventSource resends Last-Event-ID on reconnect, so the
// server resumes exactly after the last event shown; the page starts from the rendered last seq.
(function () {
  "use strict";
  const list = document.getElementById("events");
  if (!list || list.dataset.finished === "true") {
    const status = document.getElementById("stream-status");
    if (status) status.textContent = "finished";
    return;
  }
  const status = document.getElementById("stream-status");
  const KINDS = [
    "task_created", "task_started", "agent_started", "tool_started", "tool_progress", "tool_completed",
    "tool_failed", "approval_requested", "approval_decided", "agent_completed", "task_cancelling",
    "task_cancelled", "task_requeued", "task_completed", "task_failed", "task_timed_out",
    "alert_received",
  ];
  const TERMINAL = new Set(["task_cancelled", "task_completed", "task_failed", "task_timed_out"]);
  // Events after which the panel (state, buttons, report, trace, approvals) is re-rendered.
  const REFRESH = new Set(["task_started", "task_cancelling", "task_requeued", "approval_requested",
    "approval_decided", "tool_completed", "tool_failed", ...TERMINAL]);
  let lastSeq = Number(list.dataset.lastSeq || "0");
  const source = new EventSource(list.dataset.eventsUrl + "?last_event_id=" + lastSeq);

  // The panel says which seq it reflects (data-seq). A refresh can lose a race with another swap
  // of the panel (the Cancel button's answer rendered before the task ended), so after every
  // swap the panel is asked for again while it is older than the last event that changed it.
  let panelWanted = 0;

  function refreshPanel() {
    const panel = document.getElementById("panel");
    if (panel && window.htmx) {
      htmx.ajax("GET", panel.dataset.panelUrl, { target: "#panel", swap: "outerHTML" });
    }
  }

  document.body.addEventListener("htmx:afterSettle", () => {
    const panel = document.getElementById("panel");
    if (panel && panel.dataset.task === list.dataset.task
        && Number(panel.dataset.seq || "0") < panelWanted) refreshPanel();
  });

  function show(kind, event) {
    const seq = Number(event.lastEventId);
    if (!seq || seq <= lastSeq) return; // never show one twice
    lastSeq = seq;
    const data = JSON.parse(event.data);
    const item = document.createElement("li");
    item.dataset.seq = String(seq);
    const number = document.createElement("span");
    number.className = "seq";
    number.textContent = "#" + seq;
    const name = document.createElement("b");
    name.textContent = kind;
    const detail = document.createElement("span");
    detail.className = "muted";
    detail.textContent = " " + (data.agent || data.tool || data.to || data.status || "");
    item.append(number, " ", name, detail);
    list.append(item);
    if (REFRESH.has(kind)) {
      panelWanted = seq;
      refreshPanel();
    }
    if (TERMINAL.has(kind)) {
      status.textContent = "finished";
      source.close();
    }
  }

  for (const kind of KINDS) source.addEventListener(kind, (event) => show(kind, event));
  source.addEventListener("resync_required", () => window.location.reload());
  source.addEventListener("server_draining", () => { status.textContent = "reconnecting…"; });
  source.onopen = () => { status.textContent = "live"; };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // A 204 (the task ended before this page's cursor was streamed) or a refusal: the browser
      // will not retry, so show the panel as it is now.
      status.textContent = "closed";
      refreshPanel();
    } else {
      status.textContent = "reconnecting…";
    }
  };
})();
