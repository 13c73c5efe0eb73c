// Fingers on the board: two zoom it, one held flags a cell.

import { cellUnder, game } from "./board.js";
import { isCovered } from "./cells.js";
import { send } from "./moves.js";
import { setZoom, zoom } from "./zoom.js";

const LONG_PRESS_MS = 450;
// How long after the fingers of a pinch are lifted a click is not a tap.
const AFTER_PINCH_MS = 400;

const touch = {
  pinch: null,
  pressTimer: null,
  pressed: null,
  suppressClick: false,
};

// Whether a click is the end of a gesture (a held finger's flag, a pinch), not a tap: asked once.
export function swallowedClick() {
  const swallowed = touch.suppressClick;
  touch.suppressClick = false;
  return swallowed;
}

function spread(touches) {
  return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
}

// Two fingers on the board zoom it, about the point between them (the page itself keeps its scale,
// and with it the counters). Touch events, as a pinch's second finger must be able to stop the pan.
function startPinch() {
  const { board } = game;
  board.addEventListener("touchstart", (event) => {
    if (event.touches.length !== 2) return;
    cancelPress();
    touch.pinch = { spread: spread(event.touches), zoom: zoom.level, frame: null };
  }, { passive: true });
  board.addEventListener("touchmove", (event) => {
    const { pinch } = touch;
    if (!pinch || event.touches.length !== 2) return;
    if (event.cancelable) event.preventDefault();
    const [a, b] = event.touches;
    const next = pinch.zoom * spread(event.touches) / pinch.spread;
    const at = [(a.clientX + b.clientX) / 2, (a.clientY + b.clientY) / 2];
    cancelAnimationFrame(pinch.frame);
    pinch.frame = requestAnimationFrame(() => setZoom(next, ...at));
  }, { passive: false });
  board.addEventListener("touchend", (event) => {
    if (touch.pinch && event.touches.length < 2) {
      touch.pinch = null;
      touch.suppressClick = true; // the lifted fingers are not a tap
      setTimeout(() => { touch.suppressClick = false; }, AFTER_PINCH_MS);
    }
  });
}

function cancelPress() {
  clearTimeout(touch.pressTimer);
  touch.pressTimer = null;
  if (touch.pressed) touch.pressed.classList.remove("pressing");
  touch.pressed = null;
}

// iOS has no long-press contextmenu, so a held finger flags on a timer; the cell fills as it is held,
// so the player sees the flag coming (and can slide away to cancel it).
function press(event) {
  if (event.pointerType === "mouse" || !game.takes.has("flag") || touch.pinch) return;
  const hit = cellUnder(event);
  if (!hit || !isCovered(hit.cell)) return;
  cancelPress();
  touch.pressed = hit.cell;
  touch.pressed.classList.add("pressing");
  touch.pressTimer = setTimeout(() => {
    cancelPress();
    touch.suppressClick = true;
    send("flag", hit.x, hit.y);
    if (navigator.vibrate) navigator.vibrate(20);
  }, LONG_PRESS_MS);
}

function startLongPress() {
  const { board } = game;
  board.addEventListener("pointerdown", press);
  for (const type of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
    board.addEventListener(type, (event) => {
      if (type === "pointermove" && Math.abs(event.movementX) + Math.abs(event.movementY) < 4) return;
      if (touch.pressTimer) cancelPress();
    });
  }
}

export function startTouch() {
  startPinch();
  startLongPress();
}
