// Moves. Each travels as the detail of a custom event; htmx queues the requests
// (hx-sync="this:queue all") and fires configRequest when a queued one is finally
// sent, with its own triggering event, so values never mix. A reveal or chord of a
// cell already on its way is not sent twice (a double click by habit).

import { game } from "./board.js";
import { stopBot } from "./bot.js";
import { isCovered, isNumber, isSatisfied } from "./cells.js";
import { moveCursor } from "./cursor.js";
import { clearHint } from "./hints.js";

const moves = { pending: new Set() };

const ONCE = new Set(["reveal", "chord"]);

export function send(action, x, y) {
  if (game.gone) return;
  const key = `${action} ${x} ${y}`;
  if (ONCE.has(action) && moves.pending.has(key)) return;
  if (ONCE.has(action)) moves.pending.add(key);
  clearHint();
  stopBot();
  htmx.trigger(game.board, "kaboom:move", { action, x, y, key });
}

// What a click, a tap or Enter does on a cell: the armed tool's, a flag in flag mode, a chord on a
// satisfied number, a reveal on a covered cell. `touch`: a finger's, which cannot hover.
export function primary(hit, touch) {
  moveCursor(hit.x, hit.y, false);
  if (game.tool) {
    game.tool.primary(hit, touch);
  } else if (game.flagMode && game.takes.has("flag") && isCovered(hit.cell)) {
    send("flag", hit.x, hit.y);
  } else if (isNumber(hit.cell)) {
    if (game.takes.has("chord") && isSatisfied(hit.cell, hit.x, hit.y)) send("chord", hit.x, hit.y);
  } else if (hit.cell.classList.contains("u")) {
    send("reveal", hit.x, hit.y);
  }
}

function fillRequest(event) {
  const detail = event.detail.triggeringEvent && event.detail.triggeringEvent.detail;
  if (!detail || !detail.action) return;
  event.detail.parameters.action = detail.action;
  if (detail.x !== undefined) {
    event.detail.parameters.x = detail.x;
    event.detail.parameters.y = detail.y;
  }
}

function settled(event) {
  const trigger = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
  if (trigger && trigger.detail && trigger.detail.key) moves.pending.delete(trigger.detail.key);
}

export function startMoves() {
  game.board.addEventListener("htmx:configRequest", fillRequest);
  game.board.addEventListener("htmx:afterRequest", settled);
}

// Flag mode, on touch screens: taps place flags instead of revealing.
export function startFlagMode() {
  const button = document.getElementById("flag-mode");
  if (!button) return;
  button.addEventListener("click", () => {
    game.flagMode = !game.flagMode;
    button.setAttribute("aria-pressed", String(game.flagMode));
    game.board.classList.toggle("flag-mode", game.flagMode);
  });
}
