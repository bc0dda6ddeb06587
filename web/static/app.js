// Live updates of the job page: polls /harvest_jobs/{id}/progress while the job runs and
// updates the progress bar and counts. Everything on the page works without this script.
(function () {
  var el = document.getElementById("job-progress");
  if (!el || el.dataset.finished === "true") return;
  var url = el.dataset.progressUrl;
  function set(id, v) { var n = document.getElementById(id); if (n) n.textContent = v; }
  function tick() {
    fetch(url, { headers: { Accept: "application/json" } }).then(function (r) { return r.json(); }).then(function (j) {
      var p = j.percent_settled == null ? 0 : Math.min(100, j.percent_settled);
      var bar = document.getElementById("job-progress-bar");
      bar.value = p;
      el.setAttribute("aria-valuenow", String(p));
      set("job-progress-text", j.percent_settled == null ? "listing…" : p.toFixed(1) + "%");
      set("job-settled", j.settled); set("job-expected", j.expected == null ? "—" : j.expected);
      set("job-status", j.status);
      var st = document.getElementById("job-status"); if (st) st.dataset.status = j.status;
      ["total", "added", "updated", "deleted", "unchanged", "errored", "validated", "warned"].forEach(function (k) { set("count-" + k, j[k]); });
      if (j.status === "complete" || j.status === "error") { el.dataset.finished = "true"; setTimeout(function () { location.reload(); }, 500); return; }
      setTimeout(tick, 1000);
    }).catch(function () { setTimeout(tick, 3000); });
  }
  setTimeout(tick, 500);
})();

// Live dataset count of the source page while its newest job runs: polls
// /harvest_sources/{id}/counts, and reloads the page once the job has finished.
(function () {
  var el = document.getElementById("source-dataset-count");
  if (!el || el.dataset.running !== "true") return;
  function tick() {
    fetch(el.dataset.countsUrl, { headers: { Accept: "application/json" } }).then(function (r) { return r.json(); }).then(function (j) {
      el.textContent = j.dataset_count;
      if (j.last_job_status === "complete" || j.last_job_status === "error") { setTimeout(function () { location.reload(); }, 500); return; }
      setTimeout(tick, 2000);
    }).catch(function () { setTimeout(tick, 5000); });
  }
  setTimeout(tick, 1000);
})();
