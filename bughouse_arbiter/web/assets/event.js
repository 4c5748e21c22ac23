// The event page: the evening's sign-up, teams, standings and the round's
// tables, redrawn from the server's "event" view (/event/ID/ws). Everything the
// server says is shown as text. A person says who they are (that joins the
// lobby under that name through this page); when a round seats them, this page
// takes the seat at once (so the game starts on time) and offers the board:
// opening it hands the seat over to the table page.
"use strict";
const $ = (id) => document.getElementById(id);
const eventId = location.pathname.split("/")[2];
const hostToken = new URLSearchParams(location.hash.slice(1)).get("host");
const page = { socket: null, me: null, view: null, hold: null, seat: null };

function notice(text, error = false) {
  $("notice").textContent = text;
  $("notice").className = error ? "error" : "";
}
function send(message) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(JSON.stringify(message));
}
function td(row, text, cls) {
  const cell = document.createElement("td");
  cell.textContent = text;
  if (cls) cell.className = cls;
  row.append(cell);
  return cell;
}
function fill(id, rows) {
  const body = $(id);
  body.replaceChildren(...rows);
}
function num(value) { return Number.isInteger(value) ? String(value) : value.toFixed(1); }
function score(value) { return value === null ? "·" : value === 0.5 ? "½" : String(value); }

function draw(view) {
  page.view = view;
  document.title = view.title;
  $("title").textContent = view.title;
  $("state").textContent = view.state;
  $("state").className = "state " + view.state;
  const rounds = view.rounds ? `${view.round}/${view.rounds}` : "";
  let about = `${view.format === "swiss" ? "Swiss" : "round robin"} · ${view.tc} · ` +
    `${view.games} game${view.games > 1 ? "s" : ""} a match`;
  if (view.state === "signup") {
    const mins = Math.ceil(view.starts_in / 60);
    about += ` · starts in ${mins} min · check-in ${view.checkin_open ? "open" : "not open yet"}`;
  } else if (rounds) about += ` · round ${rounds}`;
  $("about").textContent = about;
  const teams = Object.fromEntries(view.teams.map((t) => [t.id, t]));
  const teamName = (id) => (id && teams[id] ? teams[id].name : id || "bye");
  fill("standings", view.standings.map((r) => {
    const row = document.createElement("tr");
    td(row, String(r.rank), "n"); td(row, teamName(r.team)); td(row, String(r.played), "n");
    td(row, num(r.match_points), "n"); td(row, num(r.game_points), "n");
    td(row, num(r.buchholz), "n"); td(row, num(r.sonneborn_berger), "n");
    return row;
  }));
  $("round-title").textContent = view.round ? `Round ${view.round}` : "Round";
  fill("round", view.matches.filter((m) => m.round === view.round).map((m) => {
    const row = document.createElement("tr");
    td(row, teamName(m.first)); td(row, m.second ? teamName(m.second) : "bye");
    td(row, m.second ? `${m.scores.map(score).join(" ")} (${num(m.game_points[0])}–${num(m.game_points[1])})` : "");
    const cell = td(row, "");
    m.tables.forEach((table, game) => {
      // A table is there while its game is played; after it, its id says where it was.
      if (m.scores[game] !== null || view.state === "finished") { cell.append(`${table} `); return; }
      const link = document.createElement("a");
      link.href = `/table/${table}`; link.textContent = `watch ${table}`; link.target = "_blank";
      cell.append(link, " ");
    });
    if (m.notes.length) cell.append(m.notes.join("; "));
    return row;
  }));
  fill("entrants", view.entrants.map((e) => {
    const row = document.createElement("tr");
    td(row, e.kind === "bot" ? `${e.name} (bot)` : e.name);
    td(row, e.rating === null ? "–" : String(Math.round(e.rating)), "n");
    td(row, e.partner ? `${e.partner}${e.partner_state === "waiting" ? " (not named back yet)" : ""}` : "–");
    td(row, e.checked_in ? "checked in" : "–");
    return row;
  }));
  fill("teams", view.teams.map((t) => {
    const row = document.createElement("tr");
    td(row, t.id); td(row, t.name + (t.together ? " (signed up together)" : "")); td(row, String(t.rating), "n");
    return row;
  }));
  $("sits-out").textContent = view.sits_out.length ? `Sitting out: ${view.sits_out.join(", ")}` : "";
  fill("log", view.log.map((line) => { const li = document.createElement("li"); li.textContent = line; return li; }));
  $("log").scrollTop = $("log").scrollHeight;
  const mine = page.me && view.entrants.find((e) => e.name === page.me);
  $("sign-up").textContent = mine ? "Change partner" : "Sign up";
  $("sign-up").disabled = view.state !== "signup";
  $("check-in").disabled = !mine || mine.checked_in || !view.checkin_open || view.state !== "signup";
  $("withdraw").disabled = !mine || view.state !== "signup";
  $("start").disabled = view.state !== "signup";
}

// -- the seat of one's game ------------------------------------------------------------

function hold(message) {
  release();
  page.seat = message;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/table/${message.table}/ws`;
  const socket = new WebSocket(url);
  page.hold = socket;
  socket.onopen = () => socket.send(JSON.stringify({ type: "sit", seat: message.seat, token: message.token, name: page.me }));
  socket.onmessage = (ev) => {
    let data;
    try { data = JSON.parse(ev.data); } catch { return; }
    if (data.type === "state" && data.result) showGame(data.result.text || data.result.result, true);
    else if (data.type === "seated") showGame("playing");
    else if (data.type === "error") showGame(data.text);
  };
  showGame("taking the seat…");
}
function release() {
  if (page.hold) { page.hold.onclose = null; page.hold.close(); }
  page.hold = null;
}
function showGame(status, over = false) {
  const seat = page.seat;
  $("game").hidden = false;
  const text = $("game-text");
  text.replaceChildren();
  text.append(`Table ${seat.table}, ${seat.seat}: ${status}. `);
  if (!over) {
    const link = document.createElement("a");
    link.href = seat.url; link.target = "_blank"; link.id = "board-link";
    link.textContent = "Open your board ↗";
    link.addEventListener("click", () => { release(); });
    text.append(link);
  } else {
    release();
  }
}

// -- the socket --------------------------------------------------------------------------

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/event/${eventId}/ws`);
  page.socket = socket;
  socket.onopen = () => { if (page.me) send({ type: "hello", name: page.me }); };
  socket.onmessage = (ev) => {
    let message;
    try { message = JSON.parse(ev.data); } catch { return; }
    if (message.type === "event") draw(message);
    else if (message.type === "welcome") {
      page.me = message.name;
      localStorage.setItem("bughouse-name", message.name);
      $("hello").hidden = true; $("actions").hidden = false;
      $("whoami").textContent = `You are ${message.name}.`;
      if (page.view) draw(page.view);
    } else if (message.type === "seat") hold(message);
    else if (message.type === "error") notice(message.text, true);
  };
  socket.onclose = () => { notice("disconnected: reconnecting…", true); setTimeout(connect, 2000); };
}

$("hello").addEventListener("submit", (ev) => {
  ev.preventDefault();
  page.me = null;
  send({ type: "hello", name: $("name").value.trim() });
});
$("sign-up").addEventListener("click", () => { notice(""); send({ type: "sign_up", partner: $("partner").value.trim() || null }); });
$("check-in").addEventListener("click", () => { notice(""); send({ type: "check_in" }); });
$("withdraw").addEventListener("click", () => send({ type: "withdraw" }));
$("start").addEventListener("click", () => send({ type: "start", token: hostToken }));
$("add-bot").addEventListener("click", () => send({ type: "add_bot", name: $("bot").value.trim(), token: hostToken }));
$("host").hidden = !hostToken;
$("name").value = localStorage.getItem("bughouse-name") || "";
connect();
