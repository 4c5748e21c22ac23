// The events page: the server's events and the host's form (POST /api/events).
"use strict";
const $ = (id) => document.getElementById(id);
function cell(row, text) { const td = document.createElement("td"); td.textContent = text; row.append(td); return td; }
async function list() {
  const events = await (await fetch("/api/events")).json();
  const body = $("events");
  body.replaceChildren();
  for (const e of events) {
    const row = document.createElement("tr");
    const link = document.createElement("a");
    link.href = e.url; link.textContent = e.title;
    cell(row, "").append(link);
    cell(row, e.format); cell(row, e.tc);
    cell(row, String(e.entrants)).className = "n"; cell(row, e.state);
    body.append(row);
  }
  if (!events.length) cell(body.insertRow(), "none yet").colSpan = 5;
}
$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const form = {
    title: f.get("title"), tc: f.get("tc"), format: f.get("format"),
    rounds: f.get("rounds") ? Number(f.get("rounds")) : null, games: Number(f.get("games") || 1),
    starts_in: Number(f.get("starts_in") || 0) * 60, checkin: Number(f.get("checkin") || 0) * 60,
    computers: f.get("computers") === "on", auto_start: f.get("auto_start") === "on",
  };
  const { csrf } = await (await fetch("/api/csrf")).json();
  const answer = await fetch("/api/events", { method: "POST", body: JSON.stringify(form),
    headers: { "content-type": "application/json", "x-csrf-token": csrf } });
  const made = await answer.json();
  if (!answer.ok) { $("notice").textContent = made.error; $("notice").className = "error"; return; }
  location.href = made.host_url;
});
list();
setInterval(list, 5000);
