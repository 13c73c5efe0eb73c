// Play for me: the bot's moves one at a time, at the chosen pace. A step is sent only once the answer to
// the one before is on the page, through the board's queue (behind any move in flight), with a deadline;
// the bot stops on Stop, at the end of the game, on any answer that is not a move and when the player
// moves or clicks a cell.

import { game } from "./board.js";
import { clearHint } from "./hints.js";
import { _ } from "./words.js";

const STEP_DEADLINE_MS = 15000;

const bot = {
  button: null,
  playing: false,
  stepInFlight: false,
  nextStep: null,
  stepSentAt: 0,
};

function setPlaying(on) {
  bot.playing = on;
  clearTimeout(bot.nextStep);
  bot.nextStep = null;
  bot.button.textContent = on ? _("Stop") : _("Play for me");
  bot.button.setAttribute("aria-pressed", String(on));
}

export function stopBot() {
  if (bot.playing) setPlaying(false);
}

function botStep() {
  bot.nextStep = null;
  if (!bot.playing || bot.stepInFlight || game.gone) return;
  bot.stepInFlight = true;
  bot.stepSentAt = Date.now();
  clearHint();
  // The promise settles at once for a request the queue holds back: the answer is read in htmx:afterRequest.
  htmx.ajax("POST", bot.button.dataset.path, { source: game.board }).catch(() => {});
}

// Fired for every ending: an answer, a timeout, a network error, an abort.
function stepEnded(event) {
  if (event.detail.pathInfo.requestPath !== bot.button.dataset.path) return;
  bot.stepInFlight = false;
  const result = document.getElementById("result");
  const moved = event.detail.successful && event.detail.xhr.status === 200;
  if (!moved || !result || result.dataset.status !== "playing") stopBot();
  if (!bot.playing) return;
  const pace = Number(document.getElementById("bot-pace").value);
  bot.nextStep = setTimeout(botStep, Math.max(0, pace - (Date.now() - bot.stepSentAt)));
}

export function startBot() {
  bot.button = document.getElementById("play-button");
  if (!bot.button) return;
  bot.button.addEventListener("click", () => {
    setPlaying(!bot.playing);
    botStep();
  });
  game.board.addEventListener("htmx:configRequest", (event) => {
    if (event.detail.path === bot.button.dataset.path) event.detail.timeout = STEP_DEADLINE_MS;
  });
  game.board.addEventListener("htmx:afterRequest", stepEnded);
}
