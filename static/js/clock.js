// The timer runs on the client from the server's count, and stops with the game.

import { game } from "./board.js";

const clock = { base: null };

export function resetTimer() {
  const timer = document.getElementById("timer");
  // A board that opens later (a race's countdown) starts its clock then.
  const opensIn = timer ? Number(timer.dataset.startsIn || 0) * 1000 : 0;
  clock.base = timer && !game.gone ? { timer, elapsed: Number(timer.dataset.elapsed), at: Date.now() + opensIn, running: timer.dataset.running === "yes" } : null;
}

export function stopClock() {
  clock.base = null;
}

function tick() {
  const timer = document.getElementById("timer");
  // A timer just swapped in (a won game's, in tenths) is read before it is written over.
  if (clock.base && timer !== clock.base.timer) resetTimer();
  const { base } = clock;
  if (!timer || !base || !base.running) return;
  const seconds = base.elapsed + Math.max(0, Math.floor((Date.now() - base.at) / 1000));
  timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export function startClock() {
  setInterval(tick, 250);
}
