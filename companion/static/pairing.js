// An unpaired tablet: ask for a short code, show it, poll until staff pair it.
"use strict";

async function askForCode() {
  const response = await fetch("/api/pairing", { method: "POST", credentials: "same-origin" });
  const data = await response.json();
  document.getElementById("pair-code").textContent = data.code;
  document.getElementById("pair-status").textContent = "Waiting for staff… (the code lasts 10 minutes)";
  return Date.now() + data.expires_in * 1000;
}

async function poll(expires) {
  if (Date.now() > expires) expires = await askForCode();
  try {
    const response = await fetch("/api/pairing", { credentials: "same-origin" });
    if (response.status === 404) expires = await askForCode();
    else {
      const data = await response.json();
      if (data.paired) { window.location.href = `/t/${data.table_id}`; return; }
    }
  } catch (error) {
    document.getElementById("pair-status").textContent = "Server unreachable; retrying…";
  }
  setTimeout(() => poll(expires), 2000);
}

document.addEventListener("DOMContentLoaded", async () => poll(await askForCode()));
