// Camera panel for the tablet page: the annotated frame, the camera's status, its questions
// (tap a candidate to answer) and problems, and the calibration step (tap the hub, then each
// train in slot order). Self-contained: include with <script src="/camera/static/camera-panel.js" defer>.
(function () {
  "use strict";
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
  const TABLE = meta("table-id");
  const CSRF = meta("csrf-token");
  const CAN_WRITE = meta("can-write") === "yes";
  if (!TABLE) return;
  const base = `/api/tables/${TABLE}/camera`;
  let panel = document.getElementById("camera-panel");
  if (!panel) {
    panel = document.createElement("section");
    panel.id = "camera-panel";
    const anchor = document.getElementById("trains");
    (anchor && anchor.parentNode ? anchor.parentNode : document.body).appendChild(panel);
  }
  panel.hidden = true;
  panel.innerHTML = `
    <h2 style="margin:.6em 0 .3em">Camera <small id="cam-state"></small></h2>
    <div id="cam-questions"></div>
    <div id="cam-problems" class="banner warn" hidden></div>
    <div style="position:relative;max-width:100%">
      <img id="cam-frame" alt="latest camera picture" style="max-width:100%;border-radius:6px">
    </div>
    <p id="cam-calib-help" class="banner note" hidden></p>
    ${CAN_WRITE ? '<button type="button" id="cam-calibrate">Calibrate trains</button>' : ""}`;
  const $ = (sel) => panel.querySelector(sel);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  let lastFrameKey = null;
  let calib = null; // {names, hub, taps}

  async function post(path, body) {
    const response = await fetch(base + path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.message || `HTTP ${response.status}`);
    return data;
  }

  function render(s) {
    panel.hidden = false;
    const words = { watching: "watching", motion: "hands on the table", ended: "video ended",
      unavailable: "camera unavailable", reconnecting: "reconnecting", failed: "camera failed",
      connecting: "connecting", closed: "off" };
    const quiet = ["watching", "motion", "ended"].includes(s.state);
    $("#cam-state").textContent = (words[s.state] || s.state) + (s.message && !quiet ? " — " + s.message : "");
    const key = `${s.settled_frames}:${(s.moves || []).length}:${(s.questions || []).length}`;
    if (key !== lastFrameKey) {
      lastFrameKey = key;
      $("#cam-frame").src = `${base}/frame.png?k=${encodeURIComponent(key)}`;
    }
    $("#cam-questions").innerHTML = (s.questions || []).map((q) => `
      <div class="banner warn" data-q="${esc(q.id)}">
        <strong>${esc(q.text)}</strong><br>
        ${q.has_crop ? `<img src="${base}/questions/${esc(q.id)}.png" alt="where the tile lies" style="max-height:180px">` : ""}
        <div>${CAN_WRITE ? q.candidates.concat(["ignore"]).map((c) =>
          `<button type="button" data-answer="${esc(c)}">${esc(c)}</button>`).join(" ") : "Waiting for a player to answer."}</div>
      </div>`).join("");
    const problems = s.problems || [];
    $("#cam-problems").hidden = problems.length === 0;
    $("#cam-problems").innerHTML = problems.map((p) => esc(p.text)).join("<br>");
  }

  panel.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-answer]");
    if (button) {
      const q = button.closest("[data-q]").dataset.q;
      try { await post("/answer", { question: q, move: button.dataset.answer }); poll(); }
      catch (err) { alert(err.message); }
      return;
    }
    if (event.target.id === "cam-calibrate") {
      const state = await (await fetch(`/api/tables/${TABLE}`)).json();
      const names = ((state.round || {}).trains || []).map((t) => t.name);
      if (!names.length) { alert("Calibration needs a Mexican Train round in play."); return; }
      calib = { names, hub: null, taps: [] };
      helpText();
      return;
    }
    if (event.target.id === "cam-frame" && calib) {
      const img = event.target;
      const rect = img.getBoundingClientRect();
      const x = (event.clientX - rect.left) * img.naturalWidth / rect.width;
      const y = (event.clientY - rect.top) * img.naturalHeight / rect.height;
      if (!calib.hub) calib.hub = [x, y]; else calib.taps.push([x, y]);
      if (calib.taps.length === calib.names.length) {
        try { await post("/calibrate", { hub: calib.hub, taps: calib.taps }); }
        catch (err) { alert(err.message); }
        calib = null;
      }
      helpText();
    }
  });

  function helpText() {
    const help = $("#cam-calib-help");
    help.hidden = !calib;
    if (!calib) return;
    help.textContent = !calib.hub ? "Tap the centre of the hub (the engine double) on the picture."
      : `Tap a spot on train ${calib.names[calib.taps.length]} (slot ${calib.taps.length + 1} of ${calib.names.length}).`;
  }

  async function poll() {
    try {
      const response = await fetch(base, { credentials: "same-origin" });
      if (response.ok) render(await response.json());
      else panel.hidden = true;
    } catch (err) { /* offline: keep the last picture */ }
  }
  poll();
  setInterval(poll, 1500);
})();
