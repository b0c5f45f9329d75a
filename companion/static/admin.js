// Staff page: pair a tablet by its code or a hub by its id, create tables, revoke devices.
"use strict";

const CSRF = document.querySelector('meta[name="csrf-token"]').content;

async function post(path, body, method = "POST") {
  const response = await fetch(path, {
    method, credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
    body: JSON.stringify(body || {}),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.message || `HTTP ${response.status}`);
  return data;
}

function say(text) {
  const box = document.getElementById("admin-message");
  box.hidden = false;
  box.textContent = text;
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("time[data-epoch]").forEach((t) => {
    t.textContent = new Date(Number(t.dataset.epoch) * 1000).toLocaleString();
  });
  document.getElementById("pair-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    try {
      await post("/admin/api/pair", { code: form.get("code"), table_id: Number(form.get("table_id")), label: form.get("label") });
      say("Paired. The tablet switches to its table within a few seconds.");
      setTimeout(() => window.location.reload(), 1500);
    } catch (error) { say(error.message); }
  });
  const hubForm = document.getElementById("hub-form");
  if (hubForm) hubForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    try {
      await post(`/admin/api/tables/${Number(form.get("table_id"))}/hub`, { hub: form.get("hub") });
      say("Hub paired: it shows this table's turn and trains now.");
      setTimeout(() => window.location.reload(), 1500);
    } catch (error) { say(error.message); }
  });
  document.getElementById("camera-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const source = String(form.get("source") || "").trim();
    try {
      await post(`/api/tables/${Number(form.get("table_id"))}/camera`, { source: source || null }, "PUT");
      say(source ? "Camera set: its status shows on the tablet." : "Camera removed.");
    } catch (error) { say(error.message); }
  });
  document.getElementById("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    try { await post("/api/tables", { name: form.get("name") }); window.location.reload(); }
    catch (error) { say(error.message); }
  });
  document.querySelectorAll("[data-revoke]").forEach((b) => b.addEventListener("click", async () => {
    try { await post(`/admin/api/devices/${b.dataset.revoke}/revoke`); window.location.reload(); }
    catch (error) { say(error.message); }
  }));
});
