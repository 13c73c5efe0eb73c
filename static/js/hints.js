// What the panel points at on the board (a hint, a loss's review, the bot's cell), and the chance of a
// mine under the pointer or the cursor.

import { game } from "./board.js";
import { cellOf } from "./cells.js";

const tips = { tip: null };

// Hints stay highlighted until the next move.
export function clearHint() {
  for (const old of game.board.querySelectorAll(".hl, .proof, .missed")) old.classList.remove("hl", "proof", "missed");
}

// A hinted cell may lie outside the part of a panned board in view (Expert on a phone). Only the
// board scrolls, never the page, and only for a hint the player asked for.
function bringIntoBoard(cell) {
  const { board } = game;
  const frame = board.getBoundingClientRect();
  const box = cell.getBoundingClientRect();
  const margin = box.width;
  if (box.left < frame.left) board.scrollLeft -= frame.left - box.left + margin;
  else if (box.right > frame.right) board.scrollLeft += box.right - frame.right + margin;
  if (box.top < frame.top) board.scrollTop -= frame.top - box.top + margin;
  else if (box.bottom > frame.bottom) board.scrollTop += box.bottom - frame.bottom + margin;
}

function markAll(ids, name, except) {
  for (const id of (ids || "").split(" ")) {
    const cell = id && document.getElementById(id);
    if (cell && cell !== except) cell.classList.add(name);
  }
}

// The server names a cell and the numbers that prove it.
export function showHint() {
  const hint = document.getElementById("hint");
  if (!hint) return;
  clearHint();
  const target = hint.dataset.cell && document.getElementById(hint.dataset.cell);
  if (target) {
    target.classList.add("hl");
    bringIntoBoard(target);
  }
  markAll(hint.dataset.proof, "proof");
  // After a loss: every cell that could have been proven safe.
  markAll(hint.dataset.safe, "missed", target);
}

// Inside the board's frame: above the cell, or below it where the frame's top would cut it off, and
// never past a side.
export function showTip(cell) {
  const { tip } = tips;
  const chance = cell && cell.dataset.p;
  if (!tip) return;
  if (!chance) {
    tip.hidden = true;
    return;
  }
  tip.textContent = chance;
  tip.hidden = false;
  const frame = game.board.getBoundingClientRect();
  const box = cell.getBoundingClientRect();
  const size = tip.getBoundingClientRect();
  const left = Math.max(frame.left, Math.min(frame.right - size.width, box.left + box.width / 2 - size.width / 2));
  const above = box.top - size.height - 3;
  tip.style.left = `${left}px`;
  tip.style.top = `${above >= frame.top ? above : box.bottom + 3}px`;
}

export function startTips() {
  tips.tip = document.getElementById("tip");
  const { board } = game;
  board.addEventListener("pointerover", (event) => {
    if (event.pointerType !== "mouse") return;
    const hit = cellOf(event.target);
    showTip(hit && hit.cell);
  });
  board.addEventListener("pointerleave", () => showTip(null));
  board.addEventListener("scroll", () => showTip(null), { passive: true });
}
