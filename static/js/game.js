// A game's page: the board's input, its cells' size, the cursor, the clock and the panel's highlights,
// each in its own module; and what a face's script (app/web/faces) may use of them.

import { startAnswers } from "./answers.js";
import { cellUnder, game, grid, keysToBoard, note } from "./board.js";
import { startBot } from "./bot.js";
import { resetTimer, startClock } from "./clock.js";
import { paintCursor } from "./cursor.js";
import { showHint, startTips } from "./hints.js";
import { faceKey, keysBackAfterClick, startKeys } from "./keys.js";
import { keepMovesOverPolls } from "./live.js";
import { send, startFlagMode, startMoves } from "./moves.js";
import { keyboardDrives } from "./page.js";
import { startPointer } from "./pointer.js";
import { startTouch } from "./touch.js";
import { startZoom } from "./zoom.js";

// The faces' scripts waiting for the board, and what they are given once it is set up.
const faces = { waiting: [], given: null };

// What a face's script may do on the board. Nothing here names a mode: a face says what it adds (a key,
// a tool for its own action) and the board offers it.
function faceInterface() {
  return Object.freeze({
    board: game.board,
    width: game.width,
    height: game.height,
    // The actions the board takes (data-actions), and whatever else its mode said of it (data-*).
    takes: (action) => game.takes.has(action),
    data: game.board.dataset,
    // A move of the game's, as the board's own are sent.
    send,
    // The cell under a pointer event ({cell, x, y}), or null.
    cellUnder,
    cursor: () => ({ ...game.cursor }),
    // Whether the keys drive the page (the cursor shows only then).
    keyboard: keyboardDrives,
    note,
    // A letter key of the page: action(event).
    key: faceKey,
    // A tool takes the board's primary action (a click, a tap, Enter) while it is armed:
    // tool.primary(hit, touch) for a cell {cell, x, y}, touch for a finger's tap (which cannot hover),
    // and tool.cursor(at) when the keys move the cursor, if it has one.
    arm: (tool) => { game.tool = tool; },
    disarm: (tool) => { if (game.tool === tool) game.tool = null; },
    // After the face's own control is clicked: the keys go back to the board, as after the page's.
    keysBack: keysBackAfterClick,
  });
}

// A face's script: start(face) once the game's board is set up (at once if it is already).
export function onGame(start) {
  if (faces.given) start(faces.given);
  else faces.waiting.push(start);
}

function afterSettle() {
  // A swapped grid (a setting changed) took the focus with it: give it back, or Space would scroll the page.
  if (document.activeElement === document.body) keysToBoard();
  resetTimer();
  paintCursor();
  showHint();
}

export function startGame() {
  const board = document.getElementById("board");
  if (!board) return;
  Object.assign(game, {
    board,
    width: Number(board.dataset.width),
    height: Number(board.dataset.height),
    takes: new Set((board.dataset.actions || "").split(" ").filter(Boolean)),
  });
  startZoom();
  startTouch();
  startMoves();
  startPointer();
  startBot();
  startFlagMode();
  startKeys();
  startTips();
  startClock();
  document.body.addEventListener("htmx:afterSettle", afterSettle);
  keepMovesOverPolls();
  startAnswers();
  resetTimer();
  paintCursor();
  showHint(); // a page loaded after a loss shows what could have been known
  // The board has the keys as soon as the page opens, with the page left where it is.
  if (game.takes.size) grid().focus({ preventScroll: true });
  faces.given = faceInterface();
  faces.waiting.splice(0).forEach((start) => start(faces.given));
}
