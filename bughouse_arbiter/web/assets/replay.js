"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const frames = data.frames;
  const last = frames.length - 1;
  const order = "QRBNP";
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const seats = {};
  const boards = {};

  function seatRow(seat) {
    const row = el("div", "seat");
    row.dataset.seat = seat;
    const name = el("span", "name", data.names[seat]);
    name.title = seat;
    const pocket = el("div", "pocket");
    const clock = el("span", "clock", "");
    row.append(name, pocket, clock);
    seats[seat] = { row, pocket, clock };
    return row;
  }

  for (const board of ["A", "B"]) {
    const [top, bottom] = data.layout[board];
    const side = el("section", "side");
    side.id = "board-" + board;
    const drawing = el("div", "board");
    boards[board] = drawing;
    side.append(el("h2", "", "Board " + board), seatRow(top), drawing, seatRow(bottom));
    document.getElementById("table").append(side);
  }
  const sub = [data.event, data.date].filter(Boolean).join(" · ");
  document.getElementById("subtitle").textContent = sub;

  const lists = { A: document.getElementById("moves-A"), B: document.getElementById("moves-B") };
  const items = [];
  frames.forEach((frame, index) => {
    if (!frame.move) return;
    const li = el("li", "", frame.move.label);
    li.dataset.frame = String(index);
    li.addEventListener("click", () => show(index));
    lists[frame.move.board].append(li);
    items.push({ li, index, board: frame.move.board });
  });
  const messageList = document.getElementById("messages");
  const messageItems = data.messages.map((m) => {
    const when = m.at === null ? "" : " (" + m.at.toFixed(1) + " s)";
    const li = el("li", "", data.names[m.seat] + " (" + m.seat + ")" + when + ": " + m.text);
    messageList.append(li);
    return li;
  });

  function clockText(seconds) {
    if (seconds === null || seconds === undefined) return "–";
    const s = Math.max(0, seconds);
    const minutes = Math.floor(s / 60);
    const rest = s - minutes * 60;
    if (s < 10) return minutes + ":" + rest.toFixed(1).padStart(4, "0");
    return minutes + ":" + String(Math.floor(rest)).padStart(2, "0");
  }

  function fillPocket(node, counts) {
    node.replaceChildren();
    const letters = Object.keys(counts).sort(
      (a, b) => order.indexOf(a.toUpperCase()) - order.indexOf(b.toUpperCase()));
    for (const letter of letters) {
      const item = el("span", "item");
      item.innerHTML = data.pieces[letter];
      item.title = letter.toUpperCase() + " × " + counts[letter];
      item.dataset.piece = letter;
      if (counts[letter] > 1) item.append(el("span", "count", String(counts[letter])));
      node.append(item);
    }
  }

  // A board as the page's data holds it: "PLACEMENT FROMTO|- CHECK|- w|b", drawn as
  // chess.svg draws it (45 px squares, the plain squares and pieces from the defs).
  const names = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };
  const drawn = new Map();
  function drawing(index) {
    if (!drawn.has(index)) drawn.set(index, drawBoard(data.boards[index]));
    return drawn.get(index);
  }
  function drawBoard(text) {
    const [placement, last, check, side] = text.split(" ");
    const flipped = side === "b";
    const at = (file, rank) =>
      flipped ? [(7 - file) * 45, rank * 45] : [file * 45, (7 - rank) * 45];
    const square = (name) => [name.charCodeAt(0) - 97, Number(name[1]) - 1];
    const parts = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 360">',
      '<use href="#squares-' + (flipped ? "black" : "white") + '" />'];
    if (last !== "-") {
      for (const name of new Set([last.slice(0, 2), last.slice(2, 4)])) {
        const [file, rank] = square(name);
        const [x, y] = at(file, rank);
        const fill = (file + rank) % 2 === 0 ? "#aaa23b" : "#cdd16a";
        parts.push('<rect x="' + x + '" y="' + y + '" width="45" height="45" ' +
          'class="square lastmove" stroke="none" fill="' + fill + '" />');
      }
    }
    if (check !== "-") {
      const [x, y] = at(...square(check));
      parts.push('<rect x="' + x + '" y="' + y + '" width="45" height="45" class="check" ' +
        'fill="url(#check_gradient)" />');
    }
    placement.split("/").forEach((row, index) => {
      let file = 0;
      for (const char of row) {
        if (char >= "1" && char <= "8") {
          file += Number(char);
          continue;
        }
        const color = char === char.toUpperCase() ? "white" : "black";
        const [x, y] = at(file, 7 - index);
        parts.push('<use href="#' + color + "-" + names[char.toLowerCase()] +
          '" transform="translate(' + x + ", " + y + ')" />');
        file += 1;
      }
    });
    parts.push("</svg>");
    return parts.join("");
  }

  let current = 0;
  function show(index) {
    current = Math.max(0, Math.min(last, index));
    const frame = frames[current];
    boards.A.innerHTML = drawing(frame.a);
    boards.B.innerHTML = drawing(frame.b);
    boards.A.classList.toggle("check", frame.check.includes("A"));
    boards.B.classList.toggle("check", frame.check.includes("B"));
    for (const seat of Object.keys(seats)) {
      const s = seats[seat];
      const left = frame.clocks[seat];
      s.clock.textContent = clockText(left);
      s.clock.classList.toggle("low", left !== null && left < 10);
      s.row.classList.toggle("running", frame.running.includes(seat) && current < last);
      fillPocket(s.pocket, frame.pockets[seat]);
    }
    const label = frame.move ? frame.move.label : "start";
    document.getElementById("where").textContent =
      "ply " + current + "/" + last + " · " + label;
    const lastOn = {};
    for (const item of items) {
      if (item.index <= current) lastOn[item.board] = item.index;
    }
    for (const item of items) {
      item.li.classList.toggle("current", lastOn[item.board] === item.index);
      item.li.classList.toggle("future", item.index > current);
    }
    const currentItems = items.filter((item) => lastOn[item.board] === item.index);
    for (const item of currentItems) item.li.scrollIntoView({ block: "nearest" });
    messageItems.forEach((li, i) => { li.hidden = i >= frame.said; });
    const ending = document.getElementById("ending");
    ending.hidden = current !== last;
    ending.textContent = data.ending;
    document.body.dataset.ply = String(current);
  }

  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(current - 1));
  document.getElementById("next").addEventListener("click", () => show(current + 1));
  document.getElementById("last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (event) => {
    const keys = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last,
                   n: current + 1, b: current - 1 };
    if (event.key in keys) {
      event.preventDefault();
      show(keys[event.key]);
    }
  });
  show(0);
})();
