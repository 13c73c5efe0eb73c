// A mouse's buttons and a finger's taps on the board, turned into moves.

import { cellUnder, game, grid, note } from "./board.js";
import { stopBot } from "./bot.js";
import { isCovered, isNumber } from "./cells.js";
import { moveCursor } from "./cursor.js";
import { primary, send } from "./moves.js";
import { swallowedClick } from "./touch.js";
import { _ } from "./words.js";

const pointer = { last: "mouse" };

function safeMode() {
  return grid().classList.contains("safe-mode");
}

function click(event) {
  const hit = game.takes.size ? cellUnder(event) : null;
  if (hit) stopBot();
  if (swallowedClick()) return;
  if (event.button !== 0 || !hit) return;
  // Safe mode: a single click on a covered cell does nothing, a double click reveals.
  if (safeMode() && hit.cell.classList.contains("u") && !game.flagMode && !game.tool) {
    note(pointer.last === "mouse" ? _("Safe mode: double-click to reveal.") : _("Safe mode: double-tap to reveal."));
    return;
  }
  primary(hit, pointer.last !== "mouse");
}

function doubleClick(event) {
  if (!safeMode()) return;
  const hit = cellUnder(event);
  if (hit && hit.cell.classList.contains("u")) {
    note("");
    send("reveal", hit.x, hit.y);
  }
}

// The browser's menu never opens on the board: a right click is a flag.
function rightClick(event) {
  event.preventDefault();
  // A finger's long press is touch.js's timer (Android would flag a second time, to a question mark).
  if (pointer.last === "touch") return;
  const hit = cellUnder(event);
  if (hit && game.takes.has("flag") && isCovered(hit.cell)) {
    moveCursor(hit.x, hit.y, false);
    send("flag", hit.x, hit.y);
  }
}

// Middle click: no autoscroll, a chord.
function middleClick(event) {
  if (event.button !== 1) return;
  event.preventDefault();
  const hit = cellUnder(event);
  if (hit && game.takes.has("chord") && isNumber(hit.cell)) send("chord", hit.x, hit.y);
}

export function startPointer() {
  const { board } = game;
  board.addEventListener("pointerdown", (event) => {
    pointer.last = event.pointerType;
  });
  board.addEventListener("click", click);
  board.addEventListener("dblclick", doubleClick);
  board.addEventListener("contextmenu", rightClick);
  board.addEventListener("mousedown", (event) => {
    if (event.button === 1) event.preventDefault();
  });
  board.addEventListener("auxclick", middleClick);
}
