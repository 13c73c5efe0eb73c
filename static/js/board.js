// The game's board as the script sees it: what the page said of it, and what the player's input set.
// It never names a mode: the board says which actions it takes (data-actions) and what else it needs (data-*).

import { cellAt, cellOf } from "./cells.js";

const NOTE_MS = 3000;

export const game = {
  board: null,
  width: 0,
  height: 0,
  takes: new Set(),
  gone: false, // the game was deleted elsewhere: the board takes nothing more
  cursor: { x: 0, y: 0 },
  flagMode: false,
  // A face's tool while it is armed (an action of its mode's own, aimed at a cell): it takes the primary action.
  tool: null,
  noteTimer: null,
};

export function grid() {
  return document.getElementById("grid");
}

// A line under the board on what a tap or a click that did nothing meant; it goes after a while.
export function note(text) {
  const line = document.getElementById("board-note");
  if (!line) return;
  line.textContent = text;
  clearTimeout(game.noteTimer);
  game.noteTimer = setTimeout(() => { line.textContent = ""; }, NOTE_MS);
}

// The cell under a pointer event; in the 1-px gaps between cells, the nearest cell's centre.
export function cellUnder(event) {
  const hit = cellOf(event.target);
  if (hit || !grid().contains(event.target)) return hit;
  const first = cellAt(0, 0).getBoundingClientRect();
  const pitch = first.width + 1;
  const x = Math.round((event.clientX - first.left - first.width / 2) / pitch);
  const y = Math.round((event.clientY - first.top - first.height / 2) / pitch);
  if (x < 0 || y < 0 || x >= game.width || y >= game.height) return null;
  return cellOf(cellAt(x, y));
}

// The keys go back to the board (a board that takes nothing has no keys to give).
export function keysToBoard() {
  if (grid() && game.takes.size) grid().focus({ preventScroll: true });
}
