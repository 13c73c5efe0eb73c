// Answers that are not moves: errors the server could not render as a fragment, a server out of reach,
// a game gone.

import { game } from "./board.js";
import { stopBot } from "./bot.js";
import { stopClock } from "./clock.js";
import { _ } from "./words.js";

function panelLine(text) {
  const panel = document.getElementById("panel");
  if (!panel) return;
  let line = document.getElementById("message");
  if (!line) {
    line = document.createElement("p");
    line.id = "message";
    panel.appendChild(line);
  }
  line.className = "message refused";
  line.setAttribute("role", "alert");
  line.textContent = text;
}

// A game gone (deleted in another tab, expired) stops here: the clock stops, and the board takes nothing more.
function goneGame() {
  game.gone = true;
  stopBot();
  stopClock();
  game.board.classList.add("gone");
  game.board.removeAttribute("hx-trigger");
}

// The error still gets a visible line: the server's own words when it sent a page that says them.
function refused(event) {
  const xhr = event.detail.xhr;
  const said = new DOMParser().parseFromString(xhr.responseText || "", "text/html").getElementById("message");
  panelLine(said ? said.textContent.trim() : _("The server could not apply that (%(status)s). Reload the page to see the game as stored.", { status: xhr.status }));
  if (xhr.status === 404) goneGame();
}

export function startAnswers() {
  document.body.addEventListener("htmx:responseError", refused);
  document.body.addEventListener("htmx:sendError", () => panelLine(_("The server cannot be reached.")));
}
