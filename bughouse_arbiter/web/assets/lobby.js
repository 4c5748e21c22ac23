// The lobby page of `bughouse server`: every table and its seats, quick
// pairing, table creation and the lobby chat, over one WebSocket (/ws).
// The server judges everything; the page only sends what was clicked and
// shows what it is told. Every text from the server lands as text (never
// innerHTML), names included.

const $ = (id) => document.getElementById(id);

// The time controls offered for "play now" and suggested for a new table:
// BASE+INC in seconds, as the server reads them.
const TIME_CONTROLS = ["60+0", "120+0", "180+0", "180+2", "300+0", "600+5"];
const DEFAULT_TC = "180+0";
// Board A's White and Board B's Black are a team; so are the other two.
const BOARDS = [["A", ["A-white", "A-black"]], ["B", ["B-white", "B-black"]]];
const TEAM_OF = { "A-white": 1, "B-black": 1, "A-black": 2, "B-white": 2 };
const CHAT_KEPT = 200;

const page = {
  socket: null,
  name: null,          // once welcomed
  wanted: null,        // the name asked for, sent again after a reconnect
  retry: 0,            // ms before the next try to connect
  helloTries: 0,       // hellos refused as "taken" since the last welcome
  lobby: null,         // the last "lobby" message, with every "lobby-diff" since applied
  queued: null,        // the last "queued" message, while queued
  queuedAt: 0,
  askedAt: -Infinity,  // when the whole view was last asked for again
  invitation: null,    // {from, tc} while one waits for an answer
  playing: null,       // the "seat" message of a game this tab opened already
  created: null,       // the table this page just created, shown first
  chat: [],            // [{from, text, at}]
};

window.bughouseLobby = page; // for the browser console and the tests

function send(message) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) {
    page.socket.send(JSON.stringify(message));
    return true;
  }
  flash("not connected: trying again…");
  return false;
}

function flash(text) {
  $("notice").textContent = text;
  $("notice").title = text;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { $("notice").textContent = ""; }, 6000);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text, onClick, className) {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function storedName() {
  try { return localStorage.getItem("bughouse-name") || ""; } catch (_) { return ""; }
}

function storeName(name) {
  try { localStorage.setItem("bughouse-name", name); } catch (_) { /* storage off */ }
}

// -- the tables ---------------------------------------------------------------

function seatLabel(seat) {
  return seat.replace("-", " ");
}

// The time control says time, increment and clock already.
const SAID_BY_TC = new Set(["profile", "time", "increment", "clock"]);

function rulesText(rules) {
  if (!rules) return "default rules";
  const profile = rules.profile || "default";
  const extra = Object.entries(rules).filter(([k]) => !SAID_BY_TC.has(k)).map(([k, v]) => `${k}=${v}`);
  return [`${profile} rules`, ...extra].join(", ");
}

// "180+2" reads as "3+2" (minutes and seconds, as players say it); "15+0" as "0:15+0".
function tcText(tc) {
  const found = /^(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)$/.exec(String(tc));
  if (!found) return String(tc);
  const base = Number(found[1]);
  const minutes = Math.floor(base / 60), seconds = base - minutes * 60;
  const shown = seconds ? `${minutes}:${String(seconds).padStart(2, "0")}` : `${minutes}`;
  return `${shown}+${found[2]}`;
}

function fillText(table) {
  if (!table.computers) return "no computers";
  return table.fill_after ? `computers after ${table.fill_after} s` : "computers at once";
}

function stateText(table) {
  switch (table.state) {
    case "open": return "open";
    case "playing": return `playing game ${table.game || 1}`;
    case "between": return "between games";
    case "closed": return "closed";
    default: return String(table.state);
  }
}

function mySeat(table) {
  for (const [seat, who] of Object.entries(table.seats || {})) {
    if (who && who.name === page.name && who.kind !== "computer" && who.kind !== "bot") return seat;
  }
  return null;
}

function seatItem(table, seat, mine) {
  const who = table.seats ? table.seats[seat] : null;
  const li = el("li", `seat team${TEAM_OF[seat]}`);
  li.dataset.seat = seat;
  li.append(el("span", "label", seat.split("-")[1]));
  if (who) {
    li.classList.add("taken");
    const name = el("span", "name", who.name);
    name.title = who.name;
    li.append(name);
    if (who.kind && who.kind !== "guest" && who.kind !== who.name) li.append(el("span", `kind ${who.kind}`, who.kind));
    if (who.rating !== null && who.rating !== undefined) li.append(el("span", "rating", String(Math.round(who.rating))));
    if (seat === mine) {
      li.classList.add("me");
      if (table.state === "open") {
        li.append(button("stand", () => send({ type: "stand", table: table.id }), "small"));
      }
    }
  } else {
    li.classList.add("open");
    li.append(el("span", "name muted", "open"));
    if (page.name && table.state === "open") {
      const sit = button(mine ? "move here" : "sit", () => send({ type: "sit", table: table.id, seat }), "small");
      sit.setAttribute("aria-label", `sit at ${table.id} ${seatLabel(seat)}`);
      li.append(sit);
    }
  }
  return li;
}

function tableItem(table) {
  const li = el("li", `table state-${table.state}`);
  li.dataset.table = table.id;
  const mine = mySeat(table);
  if (mine) li.classList.add("mine");
  if (table.id === page.created) li.classList.add("created");

  const head = el("div", "table-head");
  const tc = el("span", "tc", tcText(table.tc));
  tc.title = `${table.tc}: seconds per player + seconds per move`;
  head.append(el("b", "id", table.id), tc);
  head.append(el("span", `rated ${table.rated ? "yes" : "no"}`, table.rated ? "rated" : "casual"));
  head.append(el("span", "state", stateText(table)));
  const watchers = el("span", "watchers muted", `${table.watchers || 0} watching`);
  head.append(watchers);
  li.append(head);

  const colours = table.rematch_colours === "keep" ? "rematch keeps colours" : "rematch swaps colours";
  const facts = el("p", "facts muted", `${rulesText(table.rules)} · ${fillText(table)} · ${colours}`);
  facts.title = facts.textContent;
  li.append(facts);

  const boards = el("div", "boards");
  for (const [board, seats] of BOARDS) {
    const box = el("div", "board");
    box.append(el("span", "board-name", `Board ${board}`));
    const list = el("ul", "seats");
    for (const seat of seats) list.append(seatItem(table, seat, mine));
    box.append(list);
    boards.append(box);
  }
  li.append(boards);

  const actions = el("div", "table-actions");
  const seated = Object.values(table.seats || {}).filter(Boolean).length;
  if (mine && table.state === "open") {
    const start = button("start", () => send({ type: "start", table: table.id }), "primary");
    const ready = seated === 4 || table.computers;
    start.disabled = !ready;
    start.title = ready
      ? (seated === 4 ? "four are seated" : "computers take the open seats")
      : "four players are needed (this table takes no computers)";
    actions.append(start);
  }
  const watch = button("watch", () => watchTable(table.id));
  watch.setAttribute("aria-label", `watch ${table.id}`);
  actions.append(watch);
  const open = 4 - seated;
  let note = "";
  if (table.state === "open") {
    note = open ? `${open} open seat${open === 1 ? "" : "s"}` : "four seated: ready to start";
    // Whoever sits here is told what the table waits for.
    if (mine && open) {
      note = `waiting for ${open} more player${open === 1 ? "" : "s"}` + (table.computers
        ? `: computers take the open seats ${table.fill_after} s after the first sat, or at start`
        : " (no computers at this table)");
    }
  }
  actions.append(el("span", mine ? "why" : "muted", note));
  li.append(actions);
  return li;
}

function renderTables() {
  const lobby = page.lobby;
  const tables = lobby ? [...lobby.tables] : [];
  // Where this page sits comes first, then open tables, then the rest.
  const rank = (t) => (mySeat(t) || t.id === page.created ? 0 : t.state === "open" ? 1 : t.state === "closed" ? 3 : 2);
  tables.sort((a, b) => rank(a) - rank(b));
  $("tables").replaceChildren(...tables.map(tableItem));
  $("no-tables").hidden = Boolean(tables.length) || !lobby;
  $("before-name").hidden = Boolean(lobby || page.name);
  const online = lobby && lobby.online ? lobby.online : [];
  $("online").textContent = lobby ? `${online.length} online` : "";
  $("online").title = online.join(", ");
  const waiting = lobby && lobby.queue ? lobby.queue : [];
  if (waiting.length) {
    $("online").textContent += ` · ${waiting.reduce((n, q) => n + q.names.length, 0)} in the queue`;
  }
  // Who waits for a game now, by time control: "play now" at theirs pairs soonest.
  $("waiting").replaceChildren(...waiting.map((q) => {
    const li = el("li");
    li.append(el("b", "", tcText(q.tc)), document.createTextNode(` ${q.names.join(" & ")}`));
    return li;
  }));
  $("waiting-box").hidden = !waiting.length;
}

// The server counts the watcher and answers with the table page's address.
function watchTable(id) {
  send({ type: "watch", table: id });
}

// -- pairing ----------------------------------------------------------------------

function renderMe() {
  const named = Boolean(page.name);
  $("hello").hidden = named;
  $("me").hidden = !named;
  $("chat-form").hidden = !named;
  renderPlaying();
  const q = page.queued;
  $("queued").hidden = !q;
  // One game at a time: no "play now" while queued or at a table.
  $("quick").hidden = Boolean(q || page.playing);
  if (q) {
    $("queued-tc").textContent = `In the queue for ${tcText(q.tc)}`;
    tickQueue();
  }
  const inv = page.invitation;
  $("invite").hidden = !inv;
  if (inv) $("invite-text").textContent = `${inv.from} asks you to be partners at ${tcText(inv.tc)}.`;
}

// The server says a reason when it changes ("computers fill the seats in
// 15 s"); the page counts such a number down itself.
function tickQueue() {
  const q = page.queued;
  if (!q) return;
  const now = performance.now();
  $("queued-since").textContent = `· waiting ${Math.floor((now - page.queuedAt) / 1000)} s`;
  const passed = Math.floor((now - q.toldAt) / 1000);
  const why = String(q.why).replace(/\bin (\d+) s\b/, (_, n) => `in ${Math.max(0, Number(n) - passed)} s`);
  if ($("queued-why").textContent !== why) $("queued-why").textContent = why;
}

function seatKey(message) {
  return `bughouse-seat-${message.table}`;
}

function openedBefore(message) {
  try { return sessionStorage.getItem(seatKey(message)) === String(message.token); } catch (_) { return false; }
}

function rememberOpened(message) {
  try { sessionStorage.setItem(seatKey(message), String(message.token)); } catch (_) { /* storage off */ }
}

// The way back to a game this person holds a seat in, while the table plays.
function renderPlaying() {
  const seat = page.playing;
  const table = seat && page.lobby ? page.lobby.tables.find((t) => t.id === seat.table) : null;
  if (seat && page.lobby && (!table || table.state === "open" || table.state === "closed")) page.playing = null;
  const shown = page.playing;
  $("playing").hidden = !shown;
  if (!shown) return;
  // The message names the seat held in the current game (a rematch swaps colours).
  $("playing-text").textContent = table && table.state === "between"
    ? `Your table ${shown.table} is between games.`
    : `You are playing at ${shown.table} as ${shown.seat}.`;
  $("playing-link").href = shown.url;
}

// -- chat ------------------------------------------------------------------------------

// A line's time of day: "at" in seconds since 1970, else (seconds since the
// server started) the time it arrived.
function clock(at) {
  const date = typeof at === "number" && at > 1e9 ? new Date(at * 1000) : new Date();
  return date.toTimeString().slice(0, 5);
}

function addChat(message) {
  page.chat.push(message);
  if (page.chat.length > CHAT_KEPT) page.chat.shift();
  const list = $("chat");
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
  const li = el("li");
  li.append(el("span", "at", clock(message.at)), el("b", "", `${message.from}: `),
    document.createTextNode(message.text));
  list.append(li);
  while (list.children.length > CHAT_KEPT) list.firstElementChild.remove();
  if (atEnd) list.scrollTop = list.scrollHeight;
}

// -- connection --------------------------------------------------------------------

function showConnection() {
  const open = page.socket && page.socket.readyState === WebSocket.OPEN;
  let text = page.wanted ? "connecting…" : "choose a name to join the lobby";
  if (open && page.name) text = `you are ${page.name}`;
  else if (open) text = "connected: choose a name";
  $("status").textContent = text;
}

// The view a "lobby-diff" makes of the last one: its tables (whole entries, by
// id) replaced or added, those "gone" removed, any other part it has replaced.
function applyDiff(lobby, diff) {
  const changed = diff.tables || {};
  const gone = new Set(diff.gone || []);
  const tables = lobby.tables
    .filter((t) => !gone.has(t.id))
    .map((t) => (Object.hasOwn(changed, t.id) ? changed[t.id] : t));
  const known = new Set(tables.map((t) => t.id));
  for (const [id, entry] of Object.entries(changed)) if (!known.has(id)) tables.push(entry);
  const { type: _type, tables: _tables, gone: _gone, ...parts } = diff;
  return { ...lobby, ...parts, type: "lobby", tables };
}

function onMessage(message) {
  switch (message.type) {
    case "welcome":
      page.name = message.name;
      page.helloTries = 0;
      storeName(message.name);
      renderMe();
      renderTables();
      break;
    case "lobby":
      page.lobby = message;
      renderTables();
      renderMe();
      break;
    case "lobby-diff":
      // Not the next version (one was missed): the whole view is asked for again
      // (the server sends it at most once in 2 s).
      if (!page.lobby || message.version !== (page.lobby.version || 0) + 1) {
        if (!(performance.now() < page.askedAt + 2500)) {
          page.askedAt = performance.now();
          send({ type: "lobby" });
        }
        break;
      }
      page.lobby = applyDiff(page.lobby, message);
      renderTables();
      renderMe();
      break;
    case "created":
      page.created = message.table;
      flash(`table ${message.table} created`);
      renderTables();
      break;
    case "seat":
      // Seated for a game: the table page plays it. A seat this tab has
      // opened already (the player came back to the lobby during the game or
      // between games) is offered as a link instead of taking the page away.
      page.queued = null;
      if (openedBefore(message)) {
        page.playing = message;
        renderMe();
        break;
      }
      rememberOpened(message);
      location.assign(message.url);
      break;
    case "queued":
      if (!page.queued || page.queued.tc !== message.tc) page.queuedAt = performance.now();
      page.queued = { ...message, toldAt: performance.now() };
      renderMe();
      break;
    case "watch":
      location.assign(message.url || `/table/${encodeURIComponent(message.table)}`);
      break;
    case "left_queue":
      page.queued = null;
      if (message.why) flash(message.why);
      renderMe();
      break;
    case "invited":
      page.invitation = { from: message.from, tc: message.tc };
      renderMe();
      break;
    case "invite_withdrawn":
      if (page.invitation && page.invitation.from === message.from) page.invitation = null;
      flash(`${message.from} withdrew the invitation`);
      renderMe();
      break;
    case "declined":
      flash(`${message.by} declined the invitation${message.why ? ` (${message.why})` : ""}`);
      renderMe();
      break;
    case "muted":
    case "rematch":
      if (message.text) flash(message.text);
      else if (message.type === "rematch") flash(`${message.from} wants a rematch at ${message.table}`);
      break;
    case "chat":
      addChat(message);
      break;
    case "error":
      // Back from a table, this browser's own name may still be "taken" by the
      // table page's socket for a moment: asked again, quietly, a few times.
      if (!page.name && page.wanted && page.wanted === storedName() && /taken/.test(message.text)
          && page.helloTries++ < 4) {
        setTimeout(() => { if (page.wanted && !page.name) hello(page.wanted); }, 700);
        break;
      }
      flash(message.text);
      // A name refused leaves the form open to try another.
      if (!page.name) { page.wanted = null; renderMe(); }
      break;
    default:
      break;
  }
  showConnection();
}

// The socket opens once there is a name to say hello with (the server
// closes one that stays silent), and opens again after a drop, a little
// later each time it fails at once.
function connect() {
  if (page.socket && page.socket.readyState <= WebSocket.OPEN) return;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  page.socket = socket;
  socket.onopen = () => {
    const name = page.name || page.wanted;
    page.name = null;
    if (name) hello(name);
    showConnection();
  };
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (_) { return; }
    if (message && typeof message.type === "string") onMessage(message);
  };
  socket.onclose = () => {
    // The server forgets a queue entry with its socket.
    const welcomed = page.name !== null;
    page.queued = null;
    page.name = null;
    renderMe();
    showConnection();
    page.retry = welcomed ? 1000 : Math.min(10000, (page.retry || 500) * 2);
    if (page.wanted) setTimeout(connect, page.retry);
  };
}

function hello(name) {
  page.wanted = name;
  if (page.socket && page.socket.readyState === WebSocket.OPEN) send({ type: "hello", name });
  else connect();
}

function setUp() {
  for (const tc of TIME_CONTROLS) {
    $("quick-tc").append(new Option(tcText(tc), tc, tc === DEFAULT_TC, tc === DEFAULT_TC));
    $("tcs").append(new Option(tcText(tc), tc));
  }
  // The name this browser last used says hello at once (refused, the form stays).
  $("hello-name").value = storedName();
  page.wanted = storedName() || null;
  $("hello").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("hello-name").value.trim();
    if (name) hello(name);
  });
  $("quick").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = { type: "play_now", tc: $("quick-tc").value, computers: $("quick-computers").checked };
    const partner = $("quick-partner").value.trim();
    if (partner) message.partner = partner;
    if (send(message) && partner) flash(`invitation sent to ${partner}`);
  });
  $("leave-queue").addEventListener("click", () => {
    send({ type: "leave_queue" });
    page.queued = null;
    renderMe();
  });
  $("invite-accept").addEventListener("click", () => {
    if (!page.invitation) return;
    send({ type: "accept", from: page.invitation.from });
    page.invitation = null;
    renderMe();
  });
  $("invite-decline").addEventListener("click", () => {
    if (!page.invitation) return;
    send({ type: "decline", from: page.invitation.from });
    page.invitation = null;
    renderMe();
  });
  $("create").addEventListener("submit", (event) => {
    event.preventDefault();
    const fill = Number($("create-fill").value);
    const rules = { profile: $("create-rules").value, leaver: $("create-leaver").value };
    const grace = $("create-grace").value.trim();
    if (grace) rules.reconnect_grace = grace;
    send({
      type: "create",
      tc: $("create-tc").value.trim(),
      rules,
      rated: $("create-rated").checked,
      computers: $("create-computers").checked,
      fill_after: Number.isFinite(fill) ? fill : 20,
      rematch_colours: $("create-colours").value,
    });
  });
  $("create-computers").addEventListener("change", () => {
    $("create-fill").disabled = !$("create-computers").checked;
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (text && send({ type: "chat", text })) $("chat-text").value = "";
  });
  renderMe();
  if (page.wanted) connect();
  showConnection();
  setInterval(tickQueue, 1000);
}

setUp();
