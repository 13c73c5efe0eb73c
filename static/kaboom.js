// Kaboom's one small script: turns mouse, touch and keyboard input on the board
// into moves, and keeps the cursor, the timer and hint highlights alive across
// swaps. The server decides everything; this file only asks.
(function () {
  "use strict";

  const LONG_PRESS_MS = 450;
  const PAGE_ROWS = 10;

  function cellOf(target) {
    const cell = target && target.closest ? target.closest(".c") : null;
    if (!cell) return null;
    const [, x, y] = cell.id.split("-");
    return { cell, x: Number(x), y: Number(y) };
  }

  function isCovered(cell) {
    return cell.classList.contains("u") || cell.classList.contains("f");
  }

  function numberOf(cell) {
    const match = /\bn([1-8])\b/.exec(cell.className);
    return match ? Number(match[1]) : 0;
  }

  function isNumber(cell) {
    return numberOf(cell) > 0;
  }

  // A number whose flags are all placed and that still has covered neighbours:
  // a plain click on it chords. Other numbers ignore plain clicks.
  function isSatisfied(cell, x, y) {
    let flags = 0;
    let covered = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const other = (dx || dy) && document.getElementById(`c-${x + dx}-${y + dy}`);
        if (!other) continue;
        if (other.classList.contains("f")) flags++;
        else if (other.classList.contains("u")) covered++;
      }
    }
    return flags === numberOf(cell) && covered > 0;
  }

  function setup() {
    const board = document.getElementById("board");
    if (!board) return;
    const flagModeButton = document.getElementById("flag-mode");
    let flagMode = false;
    // Flags (two players): a click uncovers, or drops the bomb once its button is pressed; no marks.
    const twoPlayers = board.dataset.mode === "flags";
    // The bomb's button is in the panel, which every answer replaces: found when pressed.
    let bombMode = false;

    function setBombMode(on) {
      bombMode = on;
      const bombButton = document.getElementById("bomb-mode");
      if (bombButton) bombButton.setAttribute("aria-pressed", String(on));
      board.classList.toggle("bomb-mode", on);
    }
    document.addEventListener("click", (event) => {
      if (event.target.closest && event.target.closest("#bomb-mode")) setBombMode(!bombMode);
    });
    const copyInvite = document.getElementById("copy-invite");
    if (copyInvite) {
      copyInvite.addEventListener("click", () => {
        const link = document.getElementById("invite-link");
        link.select();
        if (navigator.clipboard) navigator.clipboard.writeText(link.value).then(() => { copyInvite.textContent = "Copied"; }, () => {});
      });
    }
    let cursor = { x: 0, y: 0 };
    let suppressClick = false;
    let pressTimer = null;

    // Each move travels as the detail of a custom event; htmx queues the
    // requests (hx-sync="this:queue all") and fires configRequest when a queued
    // one is finally sent, with its own triggering event, so values never mix.
    function send(action, x, y) {
      clearHint();
      stopBot();
      htmx.trigger(board, "kaboom:move", { action, x, y });
    }

    board.addEventListener("htmx:configRequest", (event) => {
      const detail = event.detail.triggeringEvent && event.detail.triggeringEvent.detail;
      if (!detail || !detail.action) return;
      event.detail.parameters.action = detail.action;
      if (detail.x !== undefined) {
        event.detail.parameters.x = detail.x;
        event.detail.parameters.y = detail.y;
      }
    });

    function primary(target) {
      const hit = cellOf(target);
      if (!hit) return;
      moveCursor(hit.x, hit.y, false);
      if (twoPlayers) {
        if (bombMode) {
          setBombMode(false);
          send("bomb", hit.x, hit.y);
        } else if (hit.cell.classList.contains("u")) {
          send("reveal", hit.x, hit.y);
        }
      } else if (flagMode && isCovered(hit.cell)) {
        send("flag", hit.x, hit.y);
      } else if (isNumber(hit.cell)) {
        if (isSatisfied(hit.cell, hit.x, hit.y)) send("chord", hit.x, hit.y);
      } else if (hit.cell.classList.contains("u")) {
        send("reveal", hit.x, hit.y);
      }
    }

    board.addEventListener("click", (event) => {
      if (cellOf(event.target)) stopBot();
      if (suppressClick) {
        suppressClick = false;
        return;
      }
      if (event.button !== 0) return;
      const hit = cellOf(event.target);
      // Safe mode: a single click on a covered cell does nothing, a double click reveals.
      if (grid().classList.contains("safe-mode") && hit && hit.cell.classList.contains("u") && !flagMode) return;
      primary(event.target);
    });

    board.addEventListener("dblclick", (event) => {
      if (!grid().classList.contains("safe-mode")) return;
      const hit = cellOf(event.target);
      if (hit && hit.cell.classList.contains("u")) send("reveal", hit.x, hit.y);
    });

    // The browser's menu never opens on the board: a right click is a flag.
    board.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      const hit = cellOf(event.target);
      if (hit && isCovered(hit.cell) && !twoPlayers) {
        moveCursor(hit.x, hit.y, false);
        send("flag", hit.x, hit.y);
      }
    });

    // Middle click: no autoscroll, a chord.
    board.addEventListener("mousedown", (event) => {
      if (event.button === 1) event.preventDefault();
    });
    board.addEventListener("auxclick", (event) => {
      if (event.button !== 1) return;
      event.preventDefault();
      const hit = cellOf(event.target);
      if (hit && isNumber(hit.cell)) send("chord", hit.x, hit.y);
    });

    // Touch: iOS has no long-press contextmenu, so a held finger flags on a timer.
    board.addEventListener("pointerdown", (event) => {
      if (event.pointerType === "mouse" || twoPlayers) return;
      const hit = cellOf(event.target);
      if (!hit || !isCovered(hit.cell)) return;
      pressTimer = setTimeout(() => {
        pressTimer = null;
        suppressClick = true;
        send("flag", hit.x, hit.y);
        if (navigator.vibrate) navigator.vibrate(20);
      }, LONG_PRESS_MS);
    });
    for (const type of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
      board.addEventListener(type, (event) => {
        if (type === "pointermove" && Math.abs(event.movementX) + Math.abs(event.movementY) < 4) return;
        if (pressTimer) {
          clearTimeout(pressTimer);
          pressTimer = null;
        }
      });
    }

    // Play for me: the bot's moves one at a time, at the chosen pace. A step is sent only once the
    // answer to the one before is on the page, through the board's queue (behind any move in flight),
    // with a deadline; the bot stops on Stop, at the end of the game, on any answer that is not a move
    // and when the player moves or clicks a cell.
    const playButton = document.getElementById("play-button");
    const STEP_DEADLINE_MS = 15000;
    let playing = false;
    let stepInFlight = false;
    let nextStep = null;
    let stepSentAt = 0;

    function setPlaying(on) {
      playing = on;
      clearTimeout(nextStep);
      nextStep = null;
      playButton.textContent = on ? "Stop" : "Play for me";
      playButton.setAttribute("aria-pressed", String(on));
    }

    function stopBot() {
      if (playing) setPlaying(false);
    }

    function botStep() {
      nextStep = null;
      if (!playing || stepInFlight) return;
      stepInFlight = true;
      stepSentAt = Date.now();
      clearHint();
      // The promise settles at once for a request the queue holds back: the answer is read in htmx:afterRequest.
      htmx.ajax("POST", playButton.dataset.path, { source: board }).catch(() => {});
    }

    if (playButton) {
      playButton.addEventListener("click", () => {
        setPlaying(!playing);
        botStep();
      });
      board.addEventListener("htmx:configRequest", (event) => {
        if (event.detail.path === playButton.dataset.path) event.detail.timeout = STEP_DEADLINE_MS;
      });
      // Fired for every ending: an answer, a timeout, a network error, an abort.
      board.addEventListener("htmx:afterRequest", (event) => {
        if (event.detail.pathInfo.requestPath !== playButton.dataset.path) return;
        stepInFlight = false;
        const result = document.getElementById("result");
        const moved = event.detail.successful && event.detail.xhr.status === 200;
        if (!moved || !result || result.dataset.status !== "playing") stopBot();
        if (!playing) return;
        const pace = Number(document.getElementById("bot-pace").value);
        nextStep = setTimeout(botStep, Math.max(0, pace - (Date.now() - stepSentAt)));
      });
    }

    if (flagModeButton) {
      flagModeButton.addEventListener("click", () => {
        flagMode = !flagMode;
        flagModeButton.setAttribute("aria-pressed", String(flagMode));
        board.classList.toggle("flag-mode", flagMode);
      });
    }

    // Keyboard: focus stays on the grid container (it is never swapped by a
    // move); the cursor is aria-activedescendant plus a class.
    function grid() {
      return document.getElementById("grid");
    }

    function moveCursor(x, y, focus) {
      const width = Number(board.dataset.width);
      const height = Number(board.dataset.height);
      cursor = { x: Math.max(0, Math.min(width - 1, x)), y: Math.max(0, Math.min(height - 1, y)) };
      paintCursor(true);
      if (focus) grid().focus({ preventScroll: true });
    }

    // Only a cursor moved by the keys scrolls into view. Scrolling on focus made a click
    // land elsewhere: the press focused the board, the board scrolled to an old cursor,
    // and the release fell on another cell, so nothing was revealed.
    function paintCursor(scroll) {
      for (const old of board.querySelectorAll(".cur")) old.classList.remove("cur");
      const cell = document.getElementById(`c-${cursor.x}-${cursor.y}`);
      if (!cell) return;
      cell.classList.add("cur");
      grid().setAttribute("aria-activedescendant", cell.id);
      if (scroll === true && document.activeElement === grid()) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
    }

    // Where a navigation key takes the cursor (moveCursor keeps it on the board), as grids do:
    // Home and End go to the ends of the row, with Ctrl to the corners of the board; Page Up
    // and Page Down move by ten rows.
    function cursorTarget(event) {
      const width = Number(board.dataset.width);
      const height = Number(board.dataset.height);
      const { x, y } = cursor;
      switch (event.key) {
        case "ArrowLeft": return [x - 1, y];
        case "ArrowRight": return [x + 1, y];
        case "ArrowUp": return [x, y - 1];
        case "ArrowDown": return [x, y + 1];
        case "Home": return event.ctrlKey ? [0, 0] : [0, y];
        case "End": return event.ctrlKey ? [width - 1, height - 1] : [width - 1, y];
        case "PageUp": return [x, y - PAGE_ROWS];
        case "PageDown": return [x, y + PAGE_ROWS];
        default: return null;
      }
    }

    board.addEventListener("keydown", (event) => {
      if (event.target !== grid()) return;
      const target = cursorTarget(event);
      if (target) {
        event.preventDefault();
        moveCursor(target[0], target[1], false);
        return;
      }
      const cell = document.getElementById(`c-${cursor.x}-${cursor.y}`);
      if (!cell) return;
      if (event.key === "Enter" && twoPlayers) {
        event.preventDefault();
        primary(cell);
      } else if (event.key === "Enter") {
        event.preventDefault();
        if (isNumber(cell)) send("chord", cursor.x, cursor.y);
        else if (cell.classList.contains("u")) send("reveal", cursor.x, cursor.y);
      } else if (event.key === " " && !twoPlayers) {
        event.preventDefault();
        if (isCovered(cell)) send("flag", cursor.x, cursor.y);
      }
    });

    grid().addEventListener("focus", () => paintCursor(false));

    function undo() {
      if (undoButton) send("undo");
    }

    function hint(which) {
      const button = document.getElementById(which);
      if (button) htmx.trigger(button, "click");
    }

    const undoButton = document.getElementById("undo");
    if (undoButton) undoButton.addEventListener("click", undo);
    const helpButton = document.getElementById("help-button");
    if (helpButton) helpButton.addEventListener("click", () => send("help"));

    // After a setting or a button is clicked with a mouse or a finger (a keyboard's click has
    // detail 0), the keys go back to the board: Space on a focused button would press it again.
    document.addEventListener("click", (event) => {
      const control = event.target.closest && event.target.closest("#options input, .toolbar button, #face");
      if (control && event.detail > 0 && grid()) grid().focus({ preventScroll: true });
    });

    document.addEventListener("keydown", (event) => {
      // Only fields that take text keep the keys; a checkbox or a button does not.
      const typing = event.target.closest && event.target.closest(
        "input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), select, textarea, [contenteditable]"
      );
      if (event.key === "F2") {
        event.preventDefault();
        document.getElementById("again").requestSubmit();
      } else if (event.key === "F3") {
        // The Pestov-Shalyto program's key: a proven-safe cell marked, or "I don't know".
        event.preventDefault();
        hint("show-button");
      } else if (typing || event.altKey || event.metaKey) {
        return;
      } else if ((event.key === "z" || event.key === "Z") && event.ctrlKey) {
        event.preventDefault();
        undo();
      } else if (event.ctrlKey) {
        return;
      } else if (event.key === "u" || event.key === "U") {
        undo();
      } else if (event.key === "h" || event.key === "H") {
        hint("hint-button");
      } else if (event.key === "s" || event.key === "S") {
        hint("show-button");
      } else if ((event.key === "a" || event.key === "A") && helpButton) {
        send("help");
      } else if ((event.key === "b" || event.key === "B") && document.getElementById("bomb-mode")) {
        setBombMode(!bombMode);
      }
    });

    // Hints: the server names a cell and the numbers that prove it; they stay
    // highlighted until the next move.
    function clearHint() {
      for (const old of board.querySelectorAll(".hl, .proof, .missed")) old.classList.remove("hl", "proof", "missed");
    }

    // A hinted cell may lie outside the part of a panned board in view (Expert on a phone). Only the
    // board scrolls, never the page, and only for a hint the player asked for.
    function bringIntoBoard(cell) {
      const frame = board.getBoundingClientRect();
      const box = cell.getBoundingClientRect();
      const margin = box.width;
      if (box.left < frame.left) board.scrollLeft -= frame.left - box.left + margin;
      else if (box.right > frame.right) board.scrollLeft += box.right - frame.right + margin;
      if (box.top < frame.top) board.scrollTop -= frame.top - box.top + margin;
      else if (box.bottom > frame.bottom) board.scrollTop += box.bottom - frame.bottom + margin;
    }

    function showHint() {
      const hintElt = document.getElementById("hint");
      if (!hintElt) return;
      clearHint();
      const target = hintElt.dataset.cell && document.getElementById(hintElt.dataset.cell);
      if (target) {
        target.classList.add("hl");
        bringIntoBoard(target);
      }
      for (const id of (hintElt.dataset.proof || "").split(" ")) {
        const number = id && document.getElementById(id);
        if (number) number.classList.add("proof");
      }
      // After a loss: every cell that could have been proven safe.
      for (const id of (hintElt.dataset.safe || "").split(" ")) {
        const missed = id && document.getElementById(id);
        if (missed && missed !== target) missed.classList.add("missed");
      }
    }

    // The timer runs on the client from the server's count, and stops with the game.
    let timerBase = null;
    function resetTimer() {
      const timer = document.getElementById("timer");
      timerBase = timer ? { elapsed: Number(timer.dataset.elapsed), at: Date.now(), running: timer.dataset.running === "yes" } : null;
    }
    setInterval(() => {
      const timer = document.getElementById("timer");
      if (!timer || !timerBase || !timerBase.running) return;
      const seconds = timerBase.elapsed + Math.floor((Date.now() - timerBase.at) / 1000);
      timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    }, 250);

    document.body.addEventListener("htmx:afterSettle", () => {
      // A swapped grid (a setting changed) took the focus with it: give it back, or Space would scroll the page.
      if (document.activeElement === document.body && grid()) grid().focus({ preventScroll: true });
      resetTimer();
      paintCursor();
      showHint();
    });

    // Errors the server could not render as a fragment still get a visible line.
    document.body.addEventListener("htmx:responseError", (event) => {
      const panel = document.getElementById("panel");
      if (!panel) return;
      let line = document.getElementById("message");
      if (!line) {
        line = document.createElement("p");
        line.id = "message";
        line.className = "message refused";
        line.setAttribute("role", "alert");
        panel.appendChild(line);
      }
      line.textContent = `The server could not apply that (${event.detail.xhr.status}). Reload the page to see the game as stored.`;
    });
    document.body.addEventListener("htmx:sendError", () => {
      const panel = document.getElementById("panel");
      if (panel) panel.insertAdjacentHTML("beforeend", '<p class="message refused" role="alert">The server cannot be reached.</p>');
    });

    resetTimer();
    paintCursor();
    showHint();  // a page loaded after a loss shows what could have been known
  }

  // A link to a folded section (the rules) unfolds it: the browser only scrolls to it.
  function openLinkedDetails() {
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  window.addEventListener("hashchange", openLinkedDetails);
  document.addEventListener("DOMContentLoaded", openLinkedDetails);

  document.addEventListener("DOMContentLoaded", setup);
})();
