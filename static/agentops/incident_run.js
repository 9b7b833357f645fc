// The coordination panel (templates/diagnosis/_coordination.html): its forms answer with the
// page's parts, which investigation.js swaps in; a note that was added clears its form.
(function () {
  "use strict";
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest(".note-form");
    if (form && event.detail.xhr && event.detail.xhr.status === 200) form.reset();
  });
})();
