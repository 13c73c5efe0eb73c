// The keyboard's cursor. Focus stays on the grid container (it is never swapped by a move); the cursor is
// aria-activedescendant plus a class, shown while the keyboard drives the page (.keyboard).

import { game, grid } from "./board.js";
import { cellAt } from "./cells.js";
import { showTip } from "./hints.js";
import { keyboardDrives } from "./page.js";

export function moveCursor(x, y, focus) {
  game.cursor = { x: Math.max(0, Math.min(game.width - 1, x)), y: Math.max(0, Math.min(game.height - 1, y)) };
  paintCursor(true);
  if (focus) grid().focus({ preventScroll: true });
}

// Only a cursor moved by the keys scrolls into view. Scrolling on focus made a click
// land elsewhere: the press focused the board, the board scrolled to an old cursor,
// and the release fell on another cell, so nothing was revealed.
export function paintCursor(scroll) {
  if (!game.takes.size) return; // a spectator's board has no cursor
  for (const old of game.board.querySelectorAll(".cur")) old.classList.remove("cur");
  const cell = cellAt(game.cursor.x, game.cursor.y);
  if (!cell) return;
  cell.classList.add("cur");
  grid().setAttribute("aria-activedescendant", cell.id);
  const keys = keyboardDrives();
  if (scroll === true && keys && document.activeElement === grid()) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
  if (keys) showTip(cell);
}
