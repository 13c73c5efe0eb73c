// The cells' size: what fits the window, times the player's zoom (per board size on this device).

import { game, grid } from "./board.js";

// Cell sizes in CSS pixels: what fits is clamped to these; a fingertip needs FINGER past a fit of FINGER_FIT.
const MIN_CELL = 18;
const MAX_CELL = 44;
const FINGER = 24;
const FINGER_FIT = 20;
const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const ZOOMED_MIN = 8;
const ZOOMED_MAX = 72;

export const zoom = {
  key: "",
  level: 1,
  baseCell: FINGER,
  resizing: null,
};

// Storage may be refused (a private window): then the zoom lasts the page.
function storedZoom() {
  try {
    return Number(localStorage.getItem(zoom.key)) || 1;
  } catch (refused) {
    return 1;
  }
}

function storeZoom() {
  try {
    localStorage.setItem(zoom.key, String(zoom.level));
  } catch (refused) { /* a private window */ }
}

// What the page keeps under the board in its column (a replay's steps): the board leaves it room.
function heightBelow() {
  const { board } = game;
  const column = [...board.parentElement.children];
  return column.slice(column.indexOf(board) + 1).reduce((sum, element) => {
    const style = getComputedStyle(element);
    if (element.hidden || style.position !== "static") return sum;
    return sum + element.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
  }, 0);
}

// The largest cell that fits the room the page leaves the board (the window less the header and
// counters; on a wide screen, less the side column too), less the 1-px gaps and the border.
function fittedCell() {
  const { board, width, height } = game;
  const main = board.closest("main");
  const side = document.querySelector(".side");
  const style = getComputedStyle(board);
  const wide = getComputedStyle(main).display === "grid";
  const roomX = (wide ? main.clientWidth - side.getBoundingClientRect().width - parseFloat(getComputedStyle(main).columnGap || 0) : main.clientWidth)
    - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const top = board.getBoundingClientRect().top + window.scrollY;
  const bottom = wide ? main.getBoundingClientRect().bottom + window.scrollY : window.innerHeight;
  const roomY = bottom - top - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - (wide ? 0 : 8) - heightBelow();
  // On a narrow screen the page scrolls on to the buttons: the board's frame keeps to the window below the counters.
  board.style.maxHeight = wide ? "" : `${Math.floor(roomY + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom))}px`;
  const fit = Math.min((roomX - width - 1) / width, (roomY - height - 1) / height);
  if (matchMedia("(pointer: coarse)").matches) return Math.min(MAX_CELL, fit >= FINGER_FIT ? fit : FINGER);
  return Math.max(MIN_CELL, Math.min(MAX_CELL, fit));
}

function applyZoom() {
  const { level, baseCell } = zoom;
  const cell = level === 1 ? baseCell : Math.max(Math.min(ZOOMED_MIN, baseCell), Math.min(ZOOMED_MAX, baseCell * level));
  game.board.style.setProperty("--cell", `${Math.floor(cell)}px`);
}

function sizeCells() {
  zoom.baseCell = fittedCell();
  applyZoom();
}

// Zoom about a point of the board (the window's coordinates), which stays where it was.
export function setZoom(next, atX, atY) {
  const { board } = game;
  const frame = board.getBoundingClientRect();
  const x = atX === undefined ? frame.left + board.clientWidth / 2 : atX;
  const y = atY === undefined ? frame.top + board.clientHeight / 2 : atY;
  const before = grid().getBoundingClientRect();
  const share = [(x - before.left) / before.width, (y - before.top) / before.height];
  zoom.level = Math.max(ZOOMS[0], Math.min(ZOOMS[ZOOMS.length - 1], next));
  storeZoom();
  applyZoom();
  const after = grid().getBoundingClientRect();
  board.scrollLeft += after.left + share[0] * after.width - x;
  board.scrollTop += after.top + share[1] * after.height - y;
}

export function zoomStep(direction) {
  const at = ZOOMS.findIndex((step) => step >= zoom.level - 1e-6);
  const index = at === -1 ? ZOOMS.length - 1 : at;
  setZoom(ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, index + direction))]);
}

export function startZoom() {
  zoom.key = `kaboom:zoom:${game.width}x${game.height}`;
  zoom.level = storedZoom();
  document.getElementById("zoom-in")?.addEventListener("click", () => zoomStep(1));
  document.getElementById("zoom-out")?.addEventListener("click", () => zoomStep(-1));
  window.addEventListener("resize", () => {
    cancelAnimationFrame(zoom.resizing);
    zoom.resizing = requestAnimationFrame(sizeCells);
  });
  sizeCells();
}
