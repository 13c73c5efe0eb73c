// Kaboom's script, the page's one entry (a module: deferred, run in order after htmx): turns mouse, touch
// and keyboard input on the board into moves, sizes the board's cells for the window, and keeps the
// cursor, the timer and hint highlights alive across swaps. The server decides everything; the script
// only asks. Its modules are in js/; a mode's own script is its face's (static/modes/), loaded by a game
// of that mode only, and given what it needs by js/game.js's onGame.

import { startGame } from "./js/game.js";
import { followLive } from "./js/live.js";
import { startPage } from "./js/page.js";
import { startPasskeys } from "./js/passkeys.js";
import { startReplay } from "./js/replay.js";

startPage();
document.addEventListener("DOMContentLoaded", startGame);
document.addEventListener("DOMContentLoaded", startReplay);
document.addEventListener("DOMContentLoaded", startPasskeys);
followLive();
