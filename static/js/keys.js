// The keyboard: the board's cursor keys, Enter and Space, and the page's letters (undo, hints, zoom, and
// those a face adds).

import { game, grid, keysToBoard } from "./board.js";
import { cellAt, isCovered, isNumber } from "./cells.js";
import { moveCursor, paintCursor } from "./cursor.js";
import { primary, send } from "./moves.js";
import { openMenu } from "./page.js";
import { zoomStep } from "./zoom.js";

const PAGE_ROWS = 10;

// The letters faces added (lower case), each with what it does.
const keys = { faces: new Map() };

// A letter key of the page for a face (the page's own come first: U, H, S).
export function faceKey(letter, action) {
  keys.faces.set(letter.toLowerCase(), action);
}

// Where a navigation key takes the cursor (moveCursor keeps it on the board), as grids do:
// Home and End go to the ends of the row, with Ctrl to the corners of the board; Page Up
// and Page Down move by ten rows.
function cursorTarget(event) {
  const { x, y } = game.cursor;
  switch (event.key) {
    case "ArrowLeft": return [x - 1, y];
    case "ArrowRight": return [x + 1, y];
    case "ArrowUp": return [x, y - 1];
    case "ArrowDown": return [x, y + 1];
    case "Home": return event.ctrlKey ? [0, 0] : [0, y];
    case "End": return event.ctrlKey ? [game.width - 1, game.height - 1] : [game.width - 1, y];
    case "PageUp": return [x, y - PAGE_ROWS];
    case "PageDown": return [x, y + PAGE_ROWS];
    default: return null;
  }
}

function boardKey(event) {
  if (event.target !== grid() || !game.takes.size) return;
  const target = cursorTarget(event);
  const { cursor } = game;
  if (target) {
    event.preventDefault();
    moveCursor(target[0], target[1], false);
    if (game.tool && game.tool.cursor) game.tool.cursor(game.cursor);
    return;
  }
  const cell = cellAt(cursor.x, cursor.y);
  if (!cell) return;
  if (event.key === "Enter") {
    event.preventDefault();
    if (game.tool || !game.takes.has("chord")) primary({ cell, x: cursor.x, y: cursor.y }, false);
    else if (isNumber(cell)) send("chord", cursor.x, cursor.y);
    else if (cell.classList.contains("u")) send("reveal", cursor.x, cursor.y);
  } else if (event.key === " " && game.takes.has("flag")) {
    event.preventDefault();
    if (isCovered(cell)) send("flag", cursor.x, cursor.y);
  }
}

function undo() {
  const button = document.getElementById("undo");
  if (button && !button.disabled) send("undo");
}

function hint(which) {
  const button = document.getElementById(which);
  if (button && !game.gone) htmx.trigger(button, "click");
}

// Only fields that take text keep the keys; a checkbox or a button does not.
const TYPING = "input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), select, textarea, [contenteditable]";

function pageKey(event) {
  const typing = event.target.closest && event.target.closest(TYPING);
  const letter = String(event.key || "").toLowerCase();
  if (event.key === "F3") {
    // The Pestov-Shalyto program's key: a proven-safe cell marked, or "I don't know".
    event.preventDefault();
    hint("show-button");
  } else if (typing || event.altKey || event.metaKey || openMenu()) {
    return;
  } else if (letter === "z" && event.ctrlKey) {
    event.preventDefault();
    undo();
  } else if (event.ctrlKey) {
    return;
  } else if (letter === "u") {
    undo();
  } else if (letter === "h") {
    hint("hint-button");
  } else if (letter === "s") {
    hint("show-button");
  } else if (keys.faces.has(letter)) {
    keys.faces.get(letter)(event);
  } else if (event.key === "+" || event.key === "=") {
    zoomStep(1);
  } else if (event.key === "-") {
    zoomStep(-1);
  }
}

// After a setting or a button is clicked with a mouse or a finger (a keyboard's click has
// detail 0), the keys go back to the board: Space on a focused button would press it again.
export function keysBackAfterClick(event) {
  if (event.detail > 0) keysToBoard();
}

export function startKeys() {
  game.board.addEventListener("keydown", boardKey);
  grid().addEventListener("focus", () => paintCursor(false));
  // The Undo button comes anew with every answer (enabled only while there is something to take back).
  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("#undo")) undo();
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("#options input, .toolbar button, .board-tools button, #face")) keysBackAfterClick(event);
  });
  document.addEventListener("keydown", pageKey);
}
