// The live page of `bughouse serve --web`: watches the table over a WebSocket
// and, with a seat's token, plays that seat. It knows no chess: the server sends
// the seat's legal moves with every snapshot and judges whatever is sent.
// As a table of `bughouse server` (/table/ID, its socket /table/ID/ws) it also
// has the table's chat, a rematch button and a link back to the lobby.
import { Chessground } from "/assets/chessground.min.js";

const ROLES = { P: "pawn", N: "knight", B: "bishop", R: "rook", Q: "queen" };
const POCKET_ORDER = "QRBNP";

// Partner signals: protocol.md §8.2's table comes from the server (protocol/
// signals.py, in the "seated" message), so the page knows no signal of its
// own: its buttons send the codes exactly, their titles are the table's words,
// and a partner message made only of signals arrives with its words.
// The signal buttons, a row each: what the row says, and the codes in it.
const SIGNAL_ROWS = [
  ["need", ["++n", "++b", "++r", "++q", "++p"]],
  ["don't give", ["--n", "--b", "--r", "--q", "--p"]],
  ["", ["sit", "go", "+trades", "-trades", "x"]],
];

// A button's short caption, from the signal's own entry in the table.
function caption(signal) {
  if (signal.kind === "word") return signal.words.split(/[:\s]/)[0];
  if (signal.subject === "trades") return signal.kind === "want" ? "trade" : "no trades";
  return ROLES[signal.subject.toUpperCase()];
}

function signalButton(signal) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "signal";
  button.dataset.tell = signal.code;
  button.title = signal.words;
  button.setAttribute("aria-label", signal.words);
  const label = document.createElement("b");
  // "++n" shows as "++N": a piece letter reads best as a capital.
  label.textContent = signal.code.replace(/[pnbrq]$/, (letter) => letter.toUpperCase());
  const small = document.createElement("small");
  small.textContent = caption(signal);
  button.append(label, small);
  button.addEventListener("click", () => send({ type: "tell", text: signal.code }));
  return button;
}

// The signal buttons, made once the table has come with the seat.
function buildSignals(table) {
  if ($("signals").childElementCount) return;
  const byCode = new Map(table.map((signal) => [signal.code, signal]));
  for (const [words, codes] of SIGNAL_ROWS) {
    const row = document.createElement("div");
    row.className = "signal-row";
    if (words) {
      const head = document.createElement("span");
      head.className = "signal-head";
      head.textContent = words;
      $("signals").append(head);
    }
    row.append(...codes.filter((code) => byCode.has(code)).map((code) => signalButton(byCode.get(code))));
    $("signals").append(row);
  }
  if (page.state) render(page.state);
}

const $ = (id) => document.getElementById(id);
// The lobby's table this page shows ("t3"), or null for `serve --web`'s one table.
const TABLE = (() => {
  const found = location.pathname.match(/^\/table\/([^/]+)\/?$/);
  return found ? decodeURIComponent(found[1]) : null;
})();
const CHAT_KEPT = 200;
// Who asked their system for less motion sees moves land without the slide.
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const page = {
  socket: null,
  state: null,
  receivedAt: 0,
  seat: null,          // "B-White" once seated
  sitRequest: null,    // the last sit message, re-sent after a reconnect
  dropRole: null,      // a pocket piece picked for a drop ("N")
  predrop: null,       // {role, key} while not to move
  wasToMove: false,
  boards: {},          // "A" -> {cg, wrap, el, moveList}
  closedForGood: false,
  // Each board's moves of game `movesGame` of run `movesRun`, as
  // [number, "w"|"b", san]; the snapshots bring only the moves the page lacks
  // (see live_view.py).
  movesRun: null,
  movesGame: null,
  moves: { A: [], B: [] },
  movesAsked: null,    // the gap last asked about, not asked about again
  confirming: null,    // what "yes" does while a resign or draw waits to be confirmed
  table: TABLE,
  chat: [],            // the table chat's lines, [{from, text, at}]
  muted: new Set(),    // names whose table chat this page hides
  rematchAsked: null,  // the game after which this seat asked for a rematch
};

// -- layout ------------------------------------------------------------------

function orientationOf(board) {
  // Partners face each other: A from White's side and B from Black's side,
  // both flipped when the seat taken belongs to the other team.
  const teamTwo = page.seat === "A-Black" || page.seat === "B-White";
  const base = board === "A" ? "white" : "black";
  return teamTwo ? (base === "white" ? "black" : "white") : base;
}

function seatOf(board, color) {
  return `${board}-${color === "white" ? "White" : "Black"}`;
}

function buildSide(board) {
  const el = $(`side-${board}`);
  el.innerHTML = "";
  const title = document.createElement("h2");
  title.innerHTML = `<span>Board ${board}</span><span class="note"></span>`;
  const top = seatRow();
  const topPocket = pocketRow();
  const topLine = document.createElement("div");
  topLine.className = "pocket-line";
  topLine.append(topPocket, title);
  const wrap = document.createElement("div");
  wrap.className = "board-wrap";
  const cgEl = document.createElement("div");
  wrap.append(cgEl);
  const bottomPocket = pocketRow();
  const bottomLine = document.createElement("div");
  bottomLine.className = "pocket-line";
  bottomLine.append(bottomPocket);
  const bottom = seatRow();
  const moveList = document.createElement("ol");
  moveList.className = "moves";
  moveList.setAttribute("aria-label", `Board ${board} moves`);
  el.append(top, topLine, wrap, bottomLine, bottom, moveList);
  const cg = Chessground(cgEl, {
    orientation: orientationOf(board),
    viewOnly: false,
    coordinates: true,
    movable: { free: false, color: undefined, showDests: true,
      events: { after: (orig, dest) => onBoardMove(board, orig, dest) } },
    premovable: { enabled: true, showDests: true, castle: true,
      events: { set: () => {}, unset: () => {} } },
    draggable: { enabled: true, showGhost: true },
    animation: { enabled: !REDUCED_MOTION, duration: 150 },
    highlight: { lastMove: true, check: true },
    events: { select: (key) => onSquare(board, key) },
    drawable: { enabled: true },
  });
  page.boards[board] = { el, cg, wrap, title, top, bottom, topPocket, bottomPocket, moveList };
}

function seatRow() {
  const row = document.createElement("div");
  row.className = "seat";
  row.innerHTML = '<span class="who"><span class="label"></span> <span class="name"></span></span>' +
    '<span class="clock">–</span>';
  return row;
}

function pocketRow() {
  const row = document.createElement("div");
  row.className = "pocket cg-wrap";
  return row;
}

function pieceEl(color, letter) {
  const piece = document.createElement("piece");
  piece.className = `${color} ${ROLES[letter]}`;
  return piece;
}

// -- snapshots ------------------------------------------------------------------

function render(state) {
  const you = state.you;
  for (const board of ["A", "B"]) {
    const b = page.boards[board];
    const info = state.boards[board];
    const orientation = orientationOf(board);
    const topColor = orientation === "white" ? "black" : "white";
    fillSeat(b.top, seatOf(board, topColor), state);
    fillSeat(b.bottom, seatOf(board, orientation), state);
    fillPocket(b.topPocket, board, topColor, info, you);
    fillPocket(b.bottomPocket, board, orientation, info, you);
    if (!info) {
      b.cg.set({ orientation });
      continue;
    }
    const mine = you && you.board === board;
    const playing = mine && info.live && state.result === null;
    const config = {
      orientation,
      fen: info.fen,
      turnColor: info.turn,
      lastMove: info.lastMove.length ? info.lastMove : undefined,
      check: info.check ? info.turn : false,
      // Never viewOnly: chessground binds its input only while not viewOnly, at (re)draw.
      movable: { color: playing ? you.color : undefined, dests: playing && you.toMove ? dests(you.legal) : new Map() },
      premovable: { enabled: Boolean(playing) },
    };
    b.cg.set(config);
    b.wrap.classList.toggle("check", info.check && info.live);
    b.wrap.classList.toggle("over", !info.live);
    const notes = [];
    if (info.lastSan) notes.push(`last: ${info.lastSan}`);
    if (info.check && info.live) notes.push("check");
    if (info.waiting) notes.push(`${info.toMove} waits for a piece`);
    if (!info.live && state.result === null) notes.push("board over");
    b.title.querySelector(".note").textContent = notes.join(" · ");
    b.wrap.dataset.fen = info.fen;
    b.wrap.dataset.lastMove = info.lastMove.join("");
    b.wrap.dataset.orientation = orientation;
    b.wrap.dataset.legal = mine && you.toMove ? you.legal.join(" ") : "";
  }
  const result = $("result");
  if (state.result) {
    result.hidden = false;
    result.textContent = `Result: ${state.result.result} (${state.result.reason})`;
    result.dataset.result = state.result.result;
  } else {
    result.hidden = true;
  }
  renderMessages(state.messages);
  renderYou(state);
  renderButtons(state);
  renderRematch(state);
  const offer = state.drawOffer ? `${state.drawOffer} offers a draw` : "";
  if ($("offer").textContent !== offer) $("offer").textContent = offer;
}

function fillSeat(row, seat, state) {
  row.dataset.seat = seat;
  row.querySelector(".label").textContent = seat;
  row.querySelector(".name").textContent = state.names[seat] || seat;
  row.classList.toggle("running", state.running.includes(seat));
  row.classList.toggle("me", seat === page.seat);
}

function fillPocket(row, board, color, info, you) {
  const pocket = info ? info.pockets[color] : {};
  const mine = you && you.board === board && you.color === color && state_live(info);
  // Rebuilt only when it changes: a button replaced under the pointer loses the click.
  const key = JSON.stringify([pocket, Boolean(mine), mine ? page.dropRole : null, color]);
  if (row.dataset.key === key) return;
  row.dataset.key = key;
  row.classList.toggle("mine", Boolean(mine));
  row.dataset.seat = seatOf(board, color);
  row.innerHTML = "";
  // Every kind keeps its place, an empty one faded, so a piece is where the
  // hand expects it; the count stands beside the piece, never over it.
  for (const letter of POCKET_ORDER) {
    const count = pocket[letter] || 0;
    const button = document.createElement("button");
    button.type = "button";
    button.className = count ? "piece-btn" : "piece-btn empty";
    button.dataset.piece = letter;
    button.title = `${count} × ${ROLES[letter]}`;
    button.setAttribute("aria-label", `${ROLES[letter]} ×${count}`);
    button.append(pieceEl(color, letter));
    const badge = document.createElement("span");
    badge.className = "count";
    badge.textContent = count > 1 ? count : "";
    button.append(badge);
    if (mine && count) {
      if (page.dropRole === letter) button.classList.add("selected");
      button.addEventListener("click", () => pickDrop(letter));
      button.addEventListener("pointerdown", (e) => dragDrop(board, color, letter, e));
    } else {
      button.disabled = true;
    }
    row.append(button);
  }
}

function state_live(info) {
  return info && info.live && page.state && page.state.result === null;
}

function dests(legal) {
  const map = new Map();
  for (const uci of legal) {
    if (uci.includes("@")) continue;
    const from = uci.slice(0, 2), to = uci.slice(2, 4);
    if (!map.has(from)) map.set(from, []);
    if (!map.get(from).includes(to)) map.get(from).push(to);
  }
  return map;
}

function renderMessages(messages) {
  // A seat's page always has the box; a spectator's shows it only with messages in it.
  $("messages-box").hidden = !messages.length && !(page.state && page.state.you);
  const list = $("messages");
  const key = JSON.stringify(messages);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.innerHTML = "";
  for (const m of messages) {
    const li = document.createElement("li");
    const who = document.createElement("b");
    who.textContent = `${m.seat} → ${m.to}: `;
    li.append(who, document.createTextNode(m.text));
    if (m.words) {
      const said = document.createElement("span");
      said.className = "meaning";
      said.textContent = ` (${m.words})`;
      li.append(said);
    }
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

function renderYou(state) {
  const you = state.you;
  $("play").hidden = !you;
  // The seat's own board comes first (on a phone, above the seat's buttons).
  const own = you ? you.board : "A";
  if (!$(`side-${own}`).classList.contains("own")) {
    for (const board of ["A", "B"]) $(`side-${board}`).classList.toggle("own", board === own);
    // chessground keeps each board's position: tell it the boards moved.
    for (const board of ["A", "B"]) page.boards[board].cg.redrawAll();
  }
  // A lobby's seats are taken in the lobby (its link brings the token).
  $("seat-form").hidden = Boolean(you) || state.result !== null || Boolean(TABLE);
  if (!you) return;
  const toMove = you.toMove;
  renderYouLine(state);
  if (toMove && !page.wasToMove) {
    beep();
    playQueued(state);
  }
  page.wasToMove = toMove;
}

// The seat's buttons work while its game runs; resigning, only while its board does.
function renderButtons(state) {
  const you = state.you;
  const over = state.result !== null;
  const board = you && state.boards[you.board];
  for (const button of document.querySelectorAll("#signals button")) button.disabled = over;
  $("draw").disabled = over;
  $("resign").disabled = over || !(board && board.live);
  $("draw").textContent = state.drawOffer && state.drawOffer !== page.seat ? "accept draw" : "offer draw";
  if (over) closeConfirm();
}

// Resigning and drawing end a game: each asks "yes" first, in the page
// (a browser's confirm() would freeze the clocks and the boards while open).
function askFirst(question, yes, action) {
  page.confirming = action;
  $("confirm-text").textContent = question;
  $("confirm-yes").textContent = yes;
  $("confirm").hidden = false;
  $("play").classList.add("confirming");
  $("confirm-yes").focus({ preventScroll: true });
}

function closeConfirm() {
  page.confirming = null;
  $("confirm").hidden = true;
  $("play").classList.remove("confirming");
}

function renderYouLine(state) {
  const you = state.you;
  const line = $("you");
  line.classList.toggle("turn", you.toMove);
  line.textContent = state.result
    ? `You played ${you.seat}.`
    : `You play ${you.seat}: ${you.toMove ? "your move" : "waiting"}` +
      (page.dropRole ? ` (drop ${ROLES[page.dropRole]}: click a square)` : "");
  // Seats rotate between the games of a run: say so when this game moved the player.
  // (At a lobby's table the rematch swaps the colours.)
  let rotated = "";
  if (you.joined && you.joined !== you.seat) {
    rotated = TABLE
      ? `Colours swapped for the rematch: you sat down as ${you.joined}, and play ${you.seat} in game ${state.game}.`
      : `Seats rotate between games: you joined as ${you.joined}, and play ${you.seat} in game ${state.game}.`;
  }
  if ($("rotated").textContent !== rotated) $("rotated").textContent = rotated;
}

// -- a lobby table: rematch and chat ------------------------------------------------

// After a game, a seated player may ask for the next one (same teams, colours
// swapped); the server starts it when every person at the table asked.
function renderRematch(state) {
  const show = Boolean(TABLE && state.you && state.result);
  $("rematch-box").hidden = !show;
  if (!show) return;
  const asked = page.rematchAsked === `${state.run}/${state.game}`;
  $("rematch").disabled = asked;
  $("rematch").textContent = asked ? "rematch asked" : "rematch";
  const note = asked ? "waiting for the others to ask too" : "same teams, colours swapped";
  if (!$("rematch-note").dataset.told) $("rematch-note").textContent = note;
}

function askRematch() {
  const state = page.state;
  if (!state || !state.result) return;
  send({ type: "rematch" });
  page.rematchAsked = `${state.run}/${state.game}`;
  delete $("rematch-note").dataset.told;
  renderRematch(state);
}

function mutedKey() {
  return `bughouse-mute-${TABLE}`;
}

function loadMuted() {
  try {
    const names = JSON.parse(localStorage.getItem(mutedKey()) || "[]");
    if (Array.isArray(names)) page.muted = new Set(names.filter((n) => typeof n === "string"));
  } catch (_) { /* storage off, or not ours */ }
}

// Mutes one name at this table: its lines go, here and (told) at the server.
function mute(name) {
  page.muted.add(name);
  try { localStorage.setItem(mutedKey(), JSON.stringify([...page.muted])); } catch (_) { /* storage off */ }
  send({ type: "mute", name });
  flash(`${name} muted at this table`);
  renderChat();
}

function unmute(name) {
  page.muted.delete(name);
  try { localStorage.setItem(mutedKey(), JSON.stringify([...page.muted])); } catch (_) { /* storage off */ }
  renderChat();
}

function chatTime(at) {
  const date = typeof at === "number" && at > 1e9 ? new Date(at * 1000) : new Date();
  return date.toTimeString().slice(0, 5);
}

function chatLine(message) {
  const li = document.createElement("li");
  const at = document.createElement("span");
  at.className = "at";
  at.textContent = message.shownAt;
  const who = document.createElement("button");
  who.type = "button";
  who.className = "who";
  who.textContent = message.from;
  who.title = `mute ${message.from} at this table`;
  who.setAttribute("aria-label", `mute ${message.from}`);
  who.addEventListener("click", () => mute(message.from));
  li.append(at, who, document.createTextNode(`: ${message.text}`));
  return li;
}

function renderChat() {
  const list = $("chat");
  const shown = page.chat.filter((m) => !page.muted.has(m.from));
  list.replaceChildren(...shown.map(chatLine));
  if (page.muted.size) {
    const li = document.createElement("li");
    li.className = "muted-line";
    li.append(document.createTextNode("muted: "));
    for (const name of page.muted) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "who";
      b.textContent = name;
      b.title = `unmute ${name}`;
      b.setAttribute("aria-label", `unmute ${name}`);
      b.addEventListener("click", () => unmute(name));
      li.append(b, document.createTextNode(" "));
    }
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

function addChat(message) {
  if (typeof message.from !== "string" || typeof message.text !== "string") return;
  $("chat-box").hidden = false;
  page.chat.push({ from: message.from, text: message.text, shownAt: chatTime(message.at) });
  if (page.chat.length > CHAT_KEPT) page.chat.shift();
  if (!page.muted.has(message.from)) renderChat();
}

// The person stays in the lobby while at its table: the page says hello on
// the lobby's socket with the name the lobby page used (the lobby page's own
// socket closed as it opened this one). The lobby keeps a series going only
// while its players are in the lobby (a rematch needs them), and tells them
// of invitations and of seats at other tables.
const lobbyLink = { socket: null, name: null, tries: 0, drops: 0 };

function wsBase() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}`;
}

function joinLobby() {
  const name = storedName();
  if (!TABLE || !name) return;
  const socket = new WebSocket(`${wsBase()}/ws`);
  lobbyLink.socket = socket;
  const hello = () => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "hello", name }));
  };
  socket.onopen = hello;
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (_) { return; }
    if (!message || typeof message.type !== "string") return;
    if (message.type === "welcome") {
      lobbyLink.name = message.name;
      lobbyLink.tries = 0;
      lobbyLink.drops = 0;
    } else if (message.type === "error" && !lobbyLink.name) {
      // The lobby page's socket may not be gone yet: the name is still "taken".
      if (lobbyLink.tries++ < 4) setTimeout(hello, 700);
    } else if (message.type === "seat" && message.table !== TABLE && typeof message.url === "string") {
      location.assign(message.url);
    } else if (message.type === "invited") {
      flash(`${message.from} asks you to be partners at ${message.tc}: answer in the lobby`);
    } else if (message.type === "rematch" && message.table === TABLE) {
      $("rematch-note").textContent = `${message.from} wants a rematch`;
      $("rematch-note").dataset.told = "1";
    }
  };
  socket.onclose = () => {
    lobbyLink.name = null;
    lobbyLink.tries = 0;
    if (lobbyLink.drops++ < 20) setTimeout(joinLobby, 2000);
  };
}

// -- move lists ------------------------------------------------------------------------

// Takes each board's range of moves from a snapshot: appended when it starts
// where the page's list ends, the page's tail dropped first when it starts
// earlier, and asked for again when it starts past the end (a gap).
function takeMoves(state) {
  if (page.movesGame !== state.game || page.movesRun !== state.run) {
    page.movesGame = state.game;
    page.movesRun = state.run;
    page.movesAsked = null;
    for (const board of ["A", "B"]) {
      page.moves[board] = [];
      page.boards[board].moveList.replaceChildren();
    }
  }
  const gaps = [];
  for (const board of ["A", "B"]) {
    const info = state.boards[board];
    if (!info) continue;
    const range = info.moves;
    const held = page.moves[board];
    const list = page.boards[board].moveList;
    if (range.from > held.length) { gaps.push([board, held.length]); continue; }
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    if (range.from < held.length) {
      held.length = range.from;
      while (list.children.length > range.from) list.lastElementChild.remove();
    }
    for (const move of range.list) {
      list.append(moveItem(move, held[held.length - 1]));
      held.push(move);
    }
    list.setAttribute("aria-busy", held.length < range.count ? "true" : "false");
    // Newest in view, unless the viewer has scrolled back to read.
    if (atEnd && range.list.length) list.scrollTop = list.scrollHeight;
  }
  // Asked once per gap: the snapshots that cross the request show it too.
  const ask = JSON.stringify(gaps);
  if (gaps.length && ask !== page.movesAsked) {
    send({ type: "moves", game: state.game, have: { A: page.moves.A.length, B: page.moves.B.length } });
  }
  page.movesAsked = gaps.length ? ask : null;
}

// "12. Nf3" or "12... Nc6"; a Black move right after White's shows its number
// to screen readers only, so the list reads "12. Nf3 Nc6" as people write it.
function moveItem([number, color, san], previous) {
  const li = document.createElement("li");
  li.className = color === "w" ? "white" : "black";
  const num = document.createElement("span");
  num.className = "num";
  num.textContent = color === "w" ? `${number}.` : `${number}...`;
  if (color === "b") {
    const follows = previous && previous[0] === number && previous[1] === "w";
    li.classList.add(follows ? "follows" : "alone");
  }
  li.append(num, document.createTextNode(` ${san}`));
  return li;
}

// -- input ------------------------------------------------------------------------

function legalNow() {
  const you = page.state && page.state.you;
  return you && you.toMove ? you.legal : [];
}

function send(message) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) {
    page.socket.send(JSON.stringify(message));
  }
}

function sendMove(uci) {
  if (!legalNow().includes(uci)) {
    flash(`${uci} is not legal now`);
    return false;
  }
  send({ type: "move", uci });
  // Until the next snapshot nothing more may be played.
  page.state.you.toMove = false;
  page.state.you.legal = [];
  renderYouLine(page.state);
  return true;
}

function onBoardMove(board, orig, dest) {
  const legal = legalNow();
  const promotions = legal.filter((u) => u.length === 5 && u.startsWith(orig + dest));
  if (promotions.length) {
    choosePromotion(board, promotions);
  } else if (!sendMove(orig + dest)) {
    render(page.state);
  }
}

function choosePromotion(board, options) {
  const dialog = $("promotion");
  dialog.innerHTML = "";
  const pieces = document.createElement("div");
  pieces.className = "choices cg-wrap";
  const title = document.createElement("p");
  title.textContent = "Promote to";
  dialog.append(title, pieces);
  const color = page.state.you.color;
  for (const uci of options.sort((a, b) => "qrbn".indexOf(a[4]) - "qrbn".indexOf(b[4]))) {
    const letter = uci[4].toUpperCase();
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.promote = uci[4];
    button.setAttribute("aria-label", ROLES[letter]);
    button.title = ROLES[letter];
    button.append(pieceEl(color, letter));
    button.addEventListener("click", () => {
      dialog.hidden = true;
      sendMove(uci);
    });
    pieces.append(button);
  }
  dialog.hidden = false;
  dialog.onclick = (e) => {
    if (e.target === dialog) { dialog.hidden = true; render(page.state); }
  };
}

function pickDrop(letter) {
  page.dropRole = page.dropRole === letter ? null : letter;
  page.predrop = null;
  render(page.state);
}

function dragDrop(board, color, letter, event) {
  if (event.pointerType === "mouse" && event.button !== 0) return;
  const cg = page.boards[board].cg;
  cg.state.movable.events.afterNewPiece = (role, key) => {
    const uci = `${letter}@${key}`;
    page.dropRole = null;
    if (!sendMove(uci)) render(page.state);
  };
  if (legalNow().some((u) => u.startsWith(`${letter}@`))) {
    cg.dragNewPiece({ role: ROLES[letter], color }, event);
  }
}

function onSquare(board, key) {
  const you = page.state && page.state.you;
  if (!you || you.board !== board || !page.dropRole) return;
  const letter = page.dropRole;
  const uci = `${letter}@${key}`;
  if (you.toMove) {
    if (legalNow().includes(uci)) {
      page.dropRole = null;
      sendMove(uci);
    } else {
      flash(`cannot drop ${ROLES[letter]} on ${key}`);
    }
  } else {
    page.predrop = { uci, key };
    page.dropRole = null;
    page.boards[board].cg.setAutoShapes([{ orig: key, brush: "paleGreen" }]);
    flash(`predrop ${uci} queued`);
  }
  render(page.state);
}

function playQueued(state) {
  const board = page.boards[state.you.board];
  if (page.predrop) {
    const { uci } = page.predrop;
    page.predrop = null;
    board.cg.setAutoShapes([]);
    if (state.you.legal.includes(uci)) { sendMove(uci); return; }
  }
  board.cg.playPremove(); // calls onBoardMove if the premove is legal now
}

function flash(text) {
  $("notice").textContent = text;
  $("notice").title = text;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { $("notice").textContent = ""; }, 4000);
}

function beep() {
  if (!$("sound").checked) return;
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.12);
  } catch (_) { /* no audio here */ }
}

// -- clocks ----------------------------------------------------------------------

function formatClock(ms) {
  ms = Math.max(0, ms);
  const total = ms / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  if (total < 10) return `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`;
  return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

function tick() {
  const state = page.state;
  if (state) {
    const elapsed = performance.now() - page.receivedAt;
    for (const row of document.querySelectorAll(".seat[data-seat]")) {
      const seat = row.dataset.seat;
      const clock = row.querySelector(".clock");
      if (state.untimed || !(seat in state.clocks)) { clock.textContent = "–"; continue; }
      const running = state.running.includes(seat);
      const ms = state.clocks[seat] - (running ? elapsed : 0);
      clock.textContent = formatClock(ms);
      clock.classList.toggle("low", ms < 10000);
    }
  }
  requestAnimationFrame(tick);
}

// -- connection ---------------------------------------------------------------------

function showConnection() {
  const s = page.state;
  let text = page.socket && page.socket.readyState === WebSocket.OPEN ? "connected" : "reconnecting…";
  if (page.closedForGood) text = "the server has closed";
  if (s && s.started) text += ` · game ${s.game}`;
  if (s && !s.started) text += " · waiting for the game to start";
  $("status").textContent = text;
}

function connect() {
  // Coming back: the server sends only the moves this page does not hold.
  const held = page.movesGame
    ? `?run=${encodeURIComponent(page.movesRun)}&game=${page.movesGame}&A=${page.moves.A.length}&B=${page.moves.B.length}`
    : "";
  const path = TABLE ? `/table/${encodeURIComponent(TABLE)}/ws` : "/ws";
  const url = `${wsBase()}${path}${held}`;
  const socket = new WebSocket(url);
  page.socket = socket;
  socket.onopen = () => {
    if (page.sitRequest) socket.send(JSON.stringify(page.sitRequest));
    showConnection();
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      page.state = message;
      page.receivedAt = performance.now();
      if (message.you) page.seat = message.you.seat;
      takeMoves(message);
      render(message);
      showConnection();
    } else if (message.type === "seated") {
      page.seat = message.seat;
      buildSignals(message.signals || []);
      for (const board of ["A", "B"]) page.boards[board].cg.set({ orientation: orientationOf(board) });
    } else if (message.type === "error") {
      flash(message.text);
      if (message.text.startsWith("cannot sit")) page.sitRequest = null;
    } else if (message.type === "chat") {
      addChat(message);
    } else if (message.type === "rematch" && typeof message.from === "string") {
      // Someone at the table asked for the next game.
      $("rematch-note").textContent = `${message.from} wants a rematch`;
      $("rematch-note").dataset.told = "1";
    }
  };
  socket.onclose = () => {
    // A lobby's table plays on (a rematch, the next game): only `serve`'s ends.
    if (!TABLE && page.state && page.state.result) {
      page.closedForGood = true;
      showConnection();
      return;
    }
    showConnection();
    setTimeout(connect, 1000);
  };
}

function sit(seat, token, name) {
  page.sitRequest = { type: "sit", seat, token, name };
  if (name) {
    try { localStorage.setItem("bughouse-name", name); } catch (_) { /* storage off */ }
  }
  send(page.sitRequest);
}

function storedName() {
  try { return localStorage.getItem("bughouse-name") || ""; } catch (_) { return ""; }
}

function setUp() {
  buildSide("A");
  buildSide("B");
  $("resign").addEventListener("click", () =>
    askFirst("Resign the game?", "yes, resign", () => send({ type: "resign" })));
  $("draw").addEventListener("click", () => {
    const accept = $("draw").textContent === "accept draw";
    askFirst(accept ? "Accept the draw?" : "Offer a draw?", accept ? "yes, accept" : "yes, offer",
      () => send({ type: "draw" }));
  });
  $("confirm-yes").addEventListener("click", () => {
    const action = page.confirming;
    closeConfirm();
    if (action) action();
  });
  $("confirm-no").addEventListener("click", closeConfirm);
  const sound = $("sound");
  sound.checked = localStorage.getItem("bughouse-sound") === "on";
  sound.addEventListener("change", () => localStorage.setItem("bughouse-sound", sound.checked ? "on" : "off"));
  $("sit").addEventListener("submit", (event) => {
    event.preventDefault();
    sit($("sit-seat").value, $("sit-token").value.trim(), $("sit-name").value.trim());
  });
  if (TABLE) {
    document.title = `Bughouse: table ${TABLE}`;
    $("to-lobby").hidden = false;
    $("chat-box").hidden = false;
    loadMuted();
    renderChat();
    joinLobby();
  }
  $("rematch").addEventListener("click", askRematch);
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text) return;
    if (page.socket && page.socket.readyState === WebSocket.OPEN) {
      send({ type: "chat", text });
      $("chat-text").value = "";
    } else {
      flash("not connected: the message was not sent");
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    closeConfirm();
    page.dropRole = null;
    page.predrop = null;
    if (page.state) render(page.state);
  });
  // The player's name: from the link (?name=Alice, or &name=Alice after the
  // token), else the one this browser last sat with.
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  $("sit-name").value = (hash.get("name") || query.get("name") || storedName()).trim();
  // #seat=b-white&token=SECRET (the server prints this link), or the lobby's
  // ?seat=A-white#token=SECRET: sit at once.
  const seat = hash.get("seat") || query.get("seat");
  if (seat && hash.get("token")) {
    const canonical = ["A-White", "A-Black", "B-White", "B-Black"].find((s) => s.toLowerCase() === seat.toLowerCase());
    sit(canonical || seat, hash.get("token"), $("sit-name").value);
  }
  connect();
  requestAnimationFrame(tick);
}

window.bughouseLive = page; // for the browser console and the tests
setUp();
