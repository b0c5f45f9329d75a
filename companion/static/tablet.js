// The table-side tablet: renders the public state, live through Server-Sent Events.
"use strict";

const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;
const TABLE = Number(meta("table-id"));
const CSRF = meta("csrf-token");
const CAN_WRITE = meta("can-write") === "yes";
const VISION = meta("vision") === "yes";
const $ = (sel) => document.querySelector(sel);
const COLORS = ["#f2c14e", "#5cc98b", "#6cb4ff", "#ff6b5e", "#c792ea", "#ffb347", "#4dd0c8",
  "#e6e6e6", "#ff8fb1", "#a3d977", "#b0a4ff", "#ffd27f"];

let state = null;
let roundEnd = { open: false, dismissedFor: null, hands: {}, mode: {} };

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;" }[c]));
}
function playerName(seat) {
  const p = state && state.players[seat];
  return p ? p.name : `p${seat + 1}`;
}
function trainName(name, owner) {
  if (owner === undefined) return `Line ${name}`;
  if (owner === null) return name === "mx" ? "Mexican train" : name;
  return `${playerName(owner)}'s train`;
}
function newKey() {
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
}

async function api(path, body) {
  const response = await fetch(`/api/tables/${TABLE}${path}`, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF, "Idempotency-Key": newKey() },
    body: JSON.stringify(body || {}),
  });
  const data = await response.json().catch(() => ({ error: "bad_reply", message: "No answer from the server." }));
  if (!response.ok) {
    const error = new Error(data.message || "Refused");
    error.data = data;
    throw error;
  }
  if (data.state) render(data.state);
  return data;
}

function showLocalError(message) {
  const box = $("#refusal");
  box.hidden = false;
  box.textContent = message;
}

// -- rendering ---------------------------------------------------------------------------
function render(next) {
  if (state && next.seq < state.seq) return; // an older answer arriving late
  state = next;
  const match = state.match;
  const round = state.round;
  $("#game").textContent = match ? match.title : "No match yet";
  $("#round-label").textContent = match ? (match.over ? "Match over" :
    `Round ${match.round_index + 1}` + (match.plan.length ? ` of ${match.plan.length}` : "") +
    (round && round.engine ? ` · engine ${round.engine}` : "")) : "";
  $("#boneyard").textContent = round ? `Boneyard ${round.boneyard_count}` : "";
  renderDevices();
  renderTurn(round);
  renderTrains(round);
  renderGameTable(round);
  renderMoves();
  renderScores();
  renderChart();
  const over = $("#match-over");
  if (match && match.over) {
    over.hidden = false;
    over.textContent = "Match over — winner: " + match.winners.map(playerName).join(" and ");
  } else over.hidden = true;
  maybeOpenRoundEnd(round);
}

function renderDevices() {
  const parts = Object.entries(state.status || {}).map(([part, s]) =>
    `<span class="chip ${s && s.online === false ? "off" : "ok"}">${esc(part)}: ${esc(s && s.text || (s && s.online === false ? "offline" : "online"))}</span>`);
  $("#devices").innerHTML = parts.join(" ");
}

function renderTurn(round) {
  const turn = $("#turn");
  if (!round) {
    turn.textContent = state.match ? "Match over" : "Waiting for a match to start";
  } else if (round.round_over) {
    turn.textContent = round.out !== null && round.out !== undefined
      ? `${playerName(round.out)} is out — round over` : "Round over (blocked)";
  } else {
    const extra = round.phase === "extra" ? " — play again after the double" : "";
    turn.textContent = `${playerName(round.current)}'s turn${extra}`;
  }
  const must = $("#must-cover");
  if (round && round.must_cover && !round.round_over) {
    const train = (round.trains || round.lines || []).find((t) => t.name === round.must_cover);
    must.hidden = false;
    must.textContent = `Open double on ${trainName(round.must_cover, train ? train.owner : null)}: it must be covered first.`;
  } else must.hidden = true;
  const refusal = $("#refusal");
  const last = state.last_refusal;
  if (last && last.seq === state.seq) {
    refusal.hidden = false;
    refusal.textContent = `Refused${last.move ? " " + last.move : ""}: ${last.message}`;
  } else refusal.hidden = true;
  const reminders = $("#reminders");
  const notes = (round && round.reminders) || [];
  reminders.hidden = notes.length === 0;
  reminders.textContent = notes.join(" ");
  const problems = $("#problems");
  const all = [...((round && round.problems) || []), ...(state.problems || [])];
  problems.hidden = all.length === 0;
  problems.textContent = all.length ? "Check: " + all.join(" ") : "";
}

function renderTrains(round) {
  const body = $("#trains tbody");
  const trains = (round && (round.trains || round.lines)) || [];
  $("#trains").hidden = trains.length === 0;
  body.innerHTML = trains.map((t) => {
    const classes = [];
    if (t.owner === round.current && !round.round_over) classes.push("current");
    if (round.must_cover === t.name) classes.push("must");
    const marker = t.owner === undefined ? (t.closed ? "closed" : "—") : t.owner === null ? "always open" :
      (t.marker ? '<span class="marker" title="marker out: open to all">🚂 open</span>' : "—");
    const tiles = (t.tiles || []).slice(-4).join("  ");
    const dbl = t.open_double ? '<span class="badge">open double</span>' : "";
    return `<tr class="${classes.join(" ")}" data-train="${esc(t.name)}"><td>${esc(trainName(t.name, t.owner))} <small>(${esc(t.name)})</small>${dbl}</td>` +
      `<td class="end">${esc(t.open_end)}</td><td>${marker}</td><td>${t.count}</td><td class="last">${esc(tiles)}</td></tr>`;
  }).join("");
}

// Texas 42 (bids, trumps, the trick on the table, tricks per team) and Doubles (open ends);
// reneges and other problems show in the problems banner.
function renderGameTable(round) {
  const box = $("#game-table");
  if (round && round.game === "texas-42") {
    const bids = (round.bids || []).map((b) => `${esc(playerName(b.seat))}: ${esc(b.bid)}`).join(" · ");
    const trick = (round.trick || []).map((t) => `${esc(playerName(t.seat))} <b>${esc(t.tile)}</b>`).join(" · ");
    const teams = ["Team 1 (seats 1 & 3)", "Team 2 (seats 2 & 4)"].map((name, i) =>
      `<tr><td>${name}</td><td class="end">${(round.team_tricks || [0, 0])[i]}</td><td class="end">${(round.team_points || [0, 0])[i]}</td></tr>`).join("");
    const bidder = round.declarer !== null && round.declarer !== undefined
      ? `${esc(playerName(round.declarer))} bid ${esc(round.high_bid)}` : "bidding";
    box.innerHTML = `<p class="big">${bidder} · trumps: <b>${esc(round.trump || "not named")}</b></p>` +
      `<p>Bids: ${bids || "—"}</p><p>On the table: ${trick || "—"}</p>` +
      `<table class="trains"><thead><tr><th>Team</th><th>Tricks</th><th>Points</th></tr></thead><tbody>${teams}</tbody></table>`;
    box.hidden = false;
  } else if (round && round.game === "doubles") {
    const ends = (round.open_ends || []).map((e) =>
      `<tr class="${e.locked ? "" : "current"}"><td>${esc(e.tile)}</td><td class="end">${esc(e.number)}</td><td>${e.free}</td><td>${e.locked ? "locked (needs its double)" : "open"}</td></tr>`).join("");
    box.innerHTML = `<p class="big">Unlocked numbers: ${(round.unlocked || []).map(esc).join(", ") || "none"}</p>` +
      `<table class="trains"><thead><tr><th>Tile</th><th>Number</th><th>Free sides</th><th></th></tr></thead><tbody>${ends}</tbody></table>`;
    box.hidden = false;
  } else {
    box.hidden = true;
    box.innerHTML = "";
  }
}

function renderMoves() {
  const list = $("#moves");
  list.innerHTML = (state.moves || []).map((m) => {
    const who = m.seat === null || m.seat === undefined ? "" : esc(playerName(m.seat)) + ": ";
    const fix = CAN_WRITE && /^\d+-\d+/.test(m.move) ? ` <button type="button" data-fix="${m.seq}" data-move="${esc(m.move)}">fix</button>` : "";
    return `<li>${who}<strong>${esc(m.move)}</strong>${fix}</li>`;
  }).join("");
}

function renderScores() {
  const table = $("#scores");
  const scores = state.scores;
  const names = state.players.map((p) => p.name);
  table.querySelector("thead").innerHTML = "<tr><th>Round</th>" + names.map((n) => `<th>${esc(n)}</th>`).join("") + "</tr>";
  if (!scores) {
    table.querySelector("tbody").innerHTML = "";
    table.querySelector("tfoot").innerHTML = "";
    return;
  }
  table.querySelector("tbody").innerHTML = scores.rounds.map((r, i) => {
    const edited = new Set((r.edits || []).map((e) => e.seat));
    const flag = r.problems && r.problems.length ? ` <span class="badge" title="${esc(r.problems.join(" "))}">check</span>` : "";
    return `<tr><td>${esc(r.engine)}${flag}</td>` + r.scores.map((s, seat) =>
      `<td class="${edited.has(seat) ? "edited " : ""}${CAN_WRITE ? "editable" : ""}" data-round="${i}" data-seat="${seat}">${s}</td>`).join("") + "</tr>";
  }).join("");
  const leaders = new Set(scores.leaders || []);
  table.querySelector("tfoot").innerHTML = "<tr><td>Total</td>" + scores.totals.map((t, seat) =>
    `<td class="${leaders.has(seat) ? "leader" : ""}">${t}</td>`).join("") + "</tr>";
}

function renderChart() {
  const box = $("#chart");
  const scores = state.scores;
  if (!scores || scores.rounds.length === 0) { box.innerHTML = ""; return; }
  const players = state.players.length;
  const series = [];
  for (let seat = 0; seat < players; seat++) {
    let total = 0;
    series.push([0, ...scores.rounds.map((r) => (total += r.scores[seat] || 0))]);
  }
  const W = 600, H = 260, L = 44, R = 90, T = 14, B = 30;
  const n = scores.rounds.length;
  const max = Math.max(10, ...series.flat());
  const x = (i) => L + (i * (W - L - R)) / Math.max(n, 1);
  const y = (v) => T + (H - T - B) * (1 - v / max);
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="running totals by round">`;
  for (let k = 0; k <= 4; k++) {
    const v = Math.round((max * k) / 4);
    svg += `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#2f4a3a"/>` +
      `<text x="${L - 6}" y="${y(v) + 4}" fill="#a9b8ad" font-size="12" text-anchor="end">${v}</text>`;
  }
  for (let i = 0; i <= n; i++) {
    const label = i === 0 ? "start" : scores.rounds[i - 1].engine;
    svg += `<text x="${x(i)}" y="${H - 10}" fill="#a9b8ad" font-size="11" text-anchor="middle">${esc(label)}</text>`;
  }
  series.forEach((points, seat) => {
    const color = COLORS[seat % COLORS.length];
    svg += `<polyline fill="none" stroke="${color}" stroke-width="3" points="${points.map((v, i) => `${x(i)},${y(v)}`).join(" ")}"/>`;
    points.forEach((v, i) => { svg += `<circle cx="${x(i)}" cy="${y(v)}" r="3.5" fill="${color}"/>`; });
    svg += `<text x="${W - R + 8}" y="${y(points[n]) + 4}" fill="${color}" font-size="13">${esc(playerName(seat))} ${points[n]}</text>`;
  });
  box.innerHTML = svg + "</svg>";
}

// -- round end: tiles, pip sums, photo ----------------------------------------------------
function maybeOpenRoundEnd(round) {
  const overlay = $("#round-end");
  if (!CAN_WRITE || !round || !round.round_over) {
    overlay.hidden = true;
    roundEnd.open = false;
    return;
  }
  const id = `${state.match.started_seq}:${state.match.round_index}`;
  if (roundEnd.dismissedFor === id) return;
  if (!roundEnd.open || roundEnd.id !== id) {
    roundEnd = { open: true, id, dismissedFor: null, hands: {}, mode: {}, photo: {} };
    buildHands(round);
  }
  overlay.hidden = false;
}

function buildHands(round) {
  const box = $("#hands");
  box.innerHTML = "";
  round.hand_sizes.forEach((size, seat) => {
    const slot = `p${seat + 1}`;
    roundEnd.hands[slot] = [];
    roundEnd.mode[slot] = "tiles";
    const card = document.createElement("div");
    card.className = "hand";
    card.dataset.slot = slot;
    if (size === 0) {
      card.innerHTML = `<h3>${esc(playerName(seat))} went out — scores 0</h3>`;
      box.appendChild(card);
      return;
    }
    const photo = VISION ? `<label>Photo <input type="file" accept="image/*" capture="environment" data-photo="${slot}"></label>` : "";
    card.innerHTML = `<h3>${esc(playerName(seat))} <small>(holds ${size})</small>` +
      `<span class="picked" data-picked="${slot}">nothing entered</span>` +
      `<label>or pip sum <input class="pipsum" data-pipsum="${slot}" placeholder="10+15+8" inputmode="text"></label>${photo}</h3>` +
      `<div class="photo-view" data-photo-view="${slot}"></div>` +
      `<div class="picker" data-picker="${slot}">` +
      (round.unseen_tiles || []).map((t) => `<button type="button" data-tile="${t}">${t}</button>`).join("") +
      "</div>";
    box.appendChild(card);
  });
  $("#preview").hidden = true;
  $("#finish-round").disabled = true;
}

function refreshPicked() {
  const owner = {};
  for (const [slot, tiles] of Object.entries(roundEnd.hands)) tiles.forEach((t) => { owner[t] = slot; });
  document.querySelectorAll("[data-picker]").forEach((picker) => {
    const slot = picker.dataset.picker;
    picker.querySelectorAll("button").forEach((b) => {
      b.classList.toggle("on", owner[b.dataset.tile] === slot);
      b.classList.toggle("taken", owner[b.dataset.tile] !== undefined && owner[b.dataset.tile] !== slot);
    });
  });
  document.querySelectorAll("[data-picked]").forEach((span) => {
    const slot = span.dataset.picked;
    const sumInput = document.querySelector(`[data-pipsum="${slot}"]`);
    if (roundEnd.mode[slot] === "pips" && sumInput && sumInput.value.trim()) span.textContent = `pip sum ${sumInput.value}`;
    else span.textContent = roundEnd.hands[slot].length ? roundEnd.hands[slot].join(" ") : "nothing entered";
  });
  $("#finish-round").disabled = true;
}

function collectHands() {
  const hands = {};
  for (const slot of Object.keys(roundEnd.hands)) {
    const seat = Number(slot.slice(1)) - 1;
    if (state.round.hand_sizes[seat] === 0) continue;
    const sumInput = document.querySelector(`[data-pipsum="${slot}"]`);
    if (roundEnd.mode[slot] === "pips" && sumInput && sumInput.value.trim()) hands[slot] = { pips: sumInput.value.trim() };
    else hands[slot] = { tiles: roundEnd.hands[slot] };
  }
  return hands;
}

async function checkRound() {
  const preview = $("#preview");
  try {
    const response = await fetch(`/api/tables/${TABLE}/round/preview`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
      body: JSON.stringify({ hands: collectHands() }),
    });
    const data = await response.json();
    preview.hidden = false;
    if (!response.ok) {
      preview.innerHTML = `<p class="banner refusal">${esc(data.message)}</p>`;
      $("#finish-round").disabled = true;
      return;
    }
    const rows = data.scores.map((s, seat) => `<tr><td>${esc(playerName(seat))}</td><td>${data.hand_pips[seat] ?? 0} pips</td><td><strong>${s}</strong></td></tr>`).join("");
    const problems = data.problems.length ? `<p class="banner warn">Check before confirming: ${esc(data.problems.join(" "))}</p>` : "";
    preview.innerHTML = `<table class="scores"><tr><th>Player</th><th>In hand</th><th>Round score</th></tr>${rows}</table>${problems}`;
    $("#finish-round").disabled = false;
  } catch (error) {
    preview.hidden = false;
    preview.textContent = "No answer from the server.";
  }
}

async function finishRound() {
  try {
    await api("/round/finish", { hands: collectHands() });
    $("#round-end").hidden = true;
    roundEnd.open = false;
  } catch (error) {
    $("#preview").innerHTML = `<p class="banner refusal">${esc(error.message)}</p>`;
  }
}

async function uploadPhoto(slot, file) {
  const view = document.querySelector(`[data-photo-view="${slot}"]`);
  view.textContent = "Reading the photo…";
  const form = new FormData();
  form.append("image", file);
  const response = await fetch(`/api/tables/${TABLE}/round/photo`, {
    method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": CSRF }, body: form,
  });
  const data = await response.json().catch(() => ({ message: "No answer from the server." }));
  if (!response.ok) { view.innerHTML = `<p class="banner refusal">${esc(data.message)}</p>`; return; }
  const url = URL.createObjectURL(file);
  const shapes = data.tiles.map((t) => {
    const pts = t.corners.map((c) => c.join(",")).join(" ");
    const [cx, cy] = t.corners.reduce((a, c) => [a[0] + c[0] / 4, a[1] + c[1] / 4], [0, 0]);
    const color = t.confident ? "#5cc98b" : "#ff6b5e";
    const size = Math.max(14, data.width / 40);
    return `<polygon points="${pts}" fill="none" stroke="${color}" stroke-width="${size / 5}"/>` +
      `<text x="${cx}" y="${cy}" fill="${color}" font-size="${size}" text-anchor="middle" stroke="#000" stroke-width="1">${esc(t.tile)}${t.confident ? "" : "?"}</text>`;
  }).join("");
  view.innerHTML = `<svg viewBox="0 0 ${data.width} ${data.height}"><image href="${url}" width="${data.width}" height="${data.height}"/>${shapes}</svg>` +
    `<p>${data.tiles.length} tiles seen${data.low_confidence ? `, ${data.low_confidence} unsure (red)` : ""}. Proposed tiles are selected below: fix any by tapping.</p>`;
  roundEnd.mode[slot] = "tiles";
  const unseen = new Set(state.round.unseen_tiles || []);
  roundEnd.hands[slot] = data.tiles.map((t) => t.tile).filter((t) => unseen.has(t));
  refreshPicked();
}

// -- wiring ------------------------------------------------------------------------------
function wire() {
  const form = $("#move-form");
  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = $("#move-input");
      const move = input.value.trim();
      if (!move) return;
      try { await api("/moves", { move }); input.value = ""; } catch (error) { showLocalError(error.message); }
    });
    form.querySelectorAll("[data-move]").forEach((b) => b.addEventListener("click", async () => {
      try { await api("/moves", { move: b.dataset.move }); } catch (error) { showLocalError(error.message); }
    }));
    $("#undo").addEventListener("click", async () => {
      try { await api("/undo", {}); } catch (error) { showLocalError(error.message); }
    });
  }
  $("#moves").addEventListener("click", (event) => {
    const b = event.target.closest("[data-fix]");
    if (!b) return;
    const dialog = $("#fix-dialog");
    $("#fix-what").textContent = `The camera or a finger said ${b.dataset.move}. What tile was it?`;
    $("#fix-tile").value = b.dataset.move.split(">")[0];
    dialog.dataset.seq = b.dataset.fix;
    dialog.showModal();
  });
  $("#fix-dialog").addEventListener("close", async () => {
    const dialog = $("#fix-dialog");
    if (dialog.returnValue !== "ok") return;
    try { await api("/fix", { move_seq: Number(dialog.dataset.seq), move: $("#fix-tile").value.trim() }); }
    catch (error) { showLocalError(error.message); }
  });
  $("#scores").addEventListener("click", (event) => {
    const cell = event.target.closest("td.editable");
    if (!cell) return;
    const dialog = $("#edit-dialog");
    const round = Number(cell.dataset.round), seat = Number(cell.dataset.seat);
    $("#edit-what").textContent = `${playerName(seat)}, round ${state.scores.rounds[round].engine}: now ${cell.textContent}.`;
    $("#edit-score").value = cell.textContent;
    $("#edit-reason").value = "";
    dialog.dataset.round = round;
    dialog.dataset.seat = seat;
    dialog.showModal();
  });
  $("#edit-dialog").addEventListener("close", async () => {
    const dialog = $("#edit-dialog");
    if (dialog.returnValue !== "ok") return;
    try {
      await api("/scores", { round: Number(dialog.dataset.round), player: Number(dialog.dataset.seat),
        score: Number($("#edit-score").value), reason: $("#edit-reason").value });
    } catch (error) { showLocalError(error.message); }
  });
  $("#hands").addEventListener("click", (event) => {
    const b = event.target.closest("[data-tile]");
    if (!b) return;
    const slot = b.closest("[data-picker]").dataset.picker;
    const tile = b.dataset.tile;
    for (const other of Object.keys(roundEnd.hands)) {
      if (other !== slot) roundEnd.hands[other] = roundEnd.hands[other].filter((t) => t !== tile);
    }
    const mine = roundEnd.hands[slot];
    roundEnd.hands[slot] = mine.includes(tile) ? mine.filter((t) => t !== tile) : [...mine, tile];
    roundEnd.mode[slot] = "tiles";
    const sumInput = document.querySelector(`[data-pipsum="${slot}"]`);
    if (sumInput) sumInput.value = "";
    refreshPicked();
  });
  $("#hands").addEventListener("input", (event) => {
    const input = event.target.closest("[data-pipsum]");
    if (!input) return;
    roundEnd.mode[input.dataset.pipsum] = input.value.trim() ? "pips" : "tiles";
    refreshPicked();
  });
  $("#hands").addEventListener("change", (event) => {
    const input = event.target.closest("[data-photo]");
    if (input && input.files.length) uploadPhoto(input.dataset.photo, input.files[0]);
  });
  $("#check-round").addEventListener("click", checkRound);
  $("#finish-round").addEventListener("click", finishRound);
  $("#close-round").addEventListener("click", () => {
    roundEnd.dismissedFor = roundEnd.id;
    roundEnd.open = false;
    $("#round-end").hidden = true;
  });
  $("#turn").addEventListener("click", () => {
    if (state && state.round && state.round.round_over) { roundEnd.dismissedFor = null; maybeOpenRoundEnd(state.round); }
  });
}

function connect() {
  const source = new EventSource(`/api/tables/${TABLE}/stream`);
  const dot = $("#live");
  source.onopen = () => dot.classList.add("on");
  source.onerror = () => dot.classList.remove("on");
  const onMessage = (event) => {
    const data = JSON.parse(event.data);
    if (data.state) render(data.state);
  };
  ["state", "move", "undo", "tile.fixed", "round.finished", "score.edited", "match.started",
    "players.seated", "refusal", "status"].forEach((kind) => source.addEventListener(kind, onMessage));
  source.onmessage = onMessage;
}

document.addEventListener("DOMContentLoaded", async () => {
  wire();
  const response = await fetch(`/api/tables/${TABLE}`);
  if (response.ok) render(await response.json());
  connect();
});
