// Kaboom's one small script: turns mouse, touch and keyboard input on the board
// into moves, sizes the board's cells for the window, and keeps the cursor, the
// timer and hint highlights alive across swaps. The server decides everything;
// this file only asks. It never names a mode: the board says which actions it
// takes (data-actions) and what else it needs (data-*).
(function () {
  "use strict";

  const LONG_PRESS_MS = 450;
  const PAGE_ROWS = 10;
  const NOTE_MS = 3000;
  // How often a live page polls while its stream is open (every 3 s, as the page says, while it is not).
  const POLL_BESIDE_STREAM_MS = 30000;
  // Cell sizes in CSS pixels: what fits is clamped to these; a fingertip needs FINGER past a fit of FINGER_FIT.
  const MIN_CELL = 18;
  const MAX_CELL = 44;
  const FINGER = 24;
  const FINGER_FIT = 20;
  const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
  const ZOOMED_MIN = 8;
  const ZOOMED_MAX = 72;

  function cellOf(target) {
    const cell = target && target.closest ? target.closest(".c") : null;
    if (!cell || !cell.id.startsWith("c-")) return null;
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

  // ----- every page -------------------------------------------------------------------------

  // F2: a new game like this one (or, on the home page, like the latest).
  document.addEventListener("keydown", (event) => {
    if (event.key !== "F2") return;
    const again = document.getElementById("again");
    if (!again) return;
    event.preventDefault();
    again.requestSubmit();
  });

  // The New game menu during a game: Escape or a click elsewhere folds it.
  function openMenu() {
    return document.querySelector("details.new-game[open]");
  }
  document.addEventListener("keydown", (event) => {
    const menu = openMenu();
    if (event.key !== "Escape" || !menu) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  document.addEventListener("click", (event) => {
    const menu = openMenu();
    if (menu && !menu.contains(event.target)) menu.open = false;
  });

  // Times as the server knows them (UTC), shown in the player's own time zone.
  function localTimes(root) {
    for (const time of root.querySelectorAll("time[datetime]")) {
      const when = new Date(time.getAttribute("datetime"));
      if (!Number.isNaN(when.getTime())) time.textContent = when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    }
  }

  // Whether the keyboard drives the page: the board's focus ring and cursor show only then.
  // (Captured: the page is marked before the board's own handler draws the cursor.)
  document.addEventListener("keydown", (event) => {
    if (!event.altKey && !event.ctrlKey && !event.metaKey) document.documentElement.classList.add("keyboard");
  }, true);
  document.addEventListener("pointerdown", () => document.documentElement.classList.remove("keyboard"));

  // A page the browser kept whole (Back, Forward) shows the game as it was then: ask again.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) location.reload();
  });

  document.addEventListener("DOMContentLoaded", () => localTimes(document));
  document.addEventListener("DOMContentLoaded", setup);
  document.addEventListener("DOMContentLoaded", setupReplay);

  // A countdown (a board that opens at a moment, the same for everyone) ticks from the server's seconds
  // left, and says so when it is over.
  setInterval(() => {
    for (const count of document.querySelectorAll("[data-countdown]")) {
      if (!count.dataset.until) count.dataset.until = String(Date.now() + Number(count.dataset.countdown) * 1000);
      const left = Math.ceil((Number(count.dataset.until) - Date.now()) / 1000);
      if (left > 0) {
        count.textContent = String(left);
      } else {
        const line = count.closest(".countdown") || count;
        line.textContent = "Go!";
      }
    }
  }, 200);

  // A Copy button next to a link copies it (data-copy names the field), and says so.
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    const field = document.getElementById(button.dataset.copy);
    if (!field) return;
    field.select();
    const done = () => { button.textContent = "Copied"; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => {});
  });

  // The poll stands in for the stream, on any live page (a game's, a room's): while the stream is open it
  // looks only now and then (in case a proxy holds the events back). Each poll costs the server a look at
  // the game or the room, and with hundreds of live pages the polls, not the streams, were most of its
  // work (bench/load.py --live).
  let streamOpen = false;
  let lastLook = Date.now();
  function streamIs(open, event) {
    streamOpen = open;
    // Said on the element too, for whoever looks at the page (the tests do).
    if (event.target && event.target.id === "live") event.target.dataset.stream = open ? "open" : "down";
  }
  // A live page whose game is gone for its viewer (deleted; or a race's board after a rematch, which the room's
  // link no longer shows) stops asking: its stream and its poll would ask again every few seconds for as long
  // as the page stays open. A page that names where it belongs now (data-gone: the room) goes there.
  document.addEventListener("htmx:responseError", (event) => {
    const live = document.getElementById("live");
    const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!live || event.detail.xhr.status !== 404 || !live.contains(asker)) return;
    // Swapped away by htmx, which cleans up as it removes: the stream closes and the poll ends.
    htmx.swap(live, "", { swapStyle: "delete" });
    if (live.dataset.gone) location.assign(live.dataset.gone);
  });
  document.addEventListener("htmx:sseOpen", (event) => streamIs(true, event));
  document.addEventListener("htmx:sseError", (event) => streamIs(false, event));
  document.addEventListener("htmx:confirm", (event) => {
    if (!event.detail.elt.closest || !event.detail.elt.closest("#live")) return;
    const told = event.detail.triggeringEvent && String(event.detail.triggeringEvent.type).startsWith("sse:");
    if (told || !streamOpen || Date.now() - lastLook >= POLL_BESIDE_STREAM_MS) {
      lastLook = Date.now();
      return;
    }
    event.preventDefault();
  });

  // ----- a finished game's replay --------------------------------------------------------------

  // The board comes as it stood before the first step; each frame holds the cells a step changed, drawn
  // as the game page draws them. Stepping forward keeps what it painted over, so stepping back restores it.
  function setupReplay() {
    const root = document.getElementById("replay");
    if (!root) return;
    const frames = JSON.parse(root.dataset.frames);
    const slider = document.getElementById("replay-slider");
    const caption = document.getElementById("replay-caption");
    const skip = document.getElementById("replay-skip");
    const overlayBox = document.getElementById("replay-overlay");
    const overlayNote = document.getElementById("replay-overlay-note");
    const legend = document.getElementById("replay-legend");
    const startCaption = caption.textContent;
    const painted = []; // painted[i]: the looks step i + 1 painted over
    let at = 0; // the steps played
    let overlaid = null; // the looks the overlay painted over
    let overlayAsked = 0;
    let overlayTimer = null;
    let marks = [];

    function snapshot(id) {
      const cell = document.getElementById(id);
      return [id, cell.className, cell.getAttribute("aria-label"), cell.textContent, cell.dataset.p || ""];
    }
    function paint([id, classes, label, text, tip]) {
      const cell = document.getElementById(id);
      if (!cell) return;
      cell.className = classes;
      cell.setAttribute("aria-label", label);
      cell.textContent = text;
      if (tip) cell.dataset.p = tip;
      else delete cell.dataset.p;
    }
    // A look as the server sends it, with the place the page's labels end with.
    function placed([id, classes, label, text, tip]) {
      const [, x, y] = id.split("-");
      return [id, classes, `${label}, column ${Number(x) + 1}, row ${Number(y) + 1}`, text, tip];
    }
    function paintOver(changes) {
      const under = changes.map(([id]) => snapshot(id));
      changes.forEach((change) => paint(placed(change)));
      return under;
    }

    function clearMarks() {
      marks.forEach(([cell, name]) => cell.classList.remove(name));
      marks = [];
    }
    function mark(at, name) {
      const cell = at && document.getElementById(`c-${at[0]}-${at[1]}`);
      if (!cell) return null;
      cell.classList.add(name);
      marks.push([cell, name]);
      return cell;
    }
    function showMarks() {
      const frame = frames[at - 1];
      if (!frame) return;
      frame.proof.forEach((cell) => mark(cell, "proof"));
      mark(frame.example, "hl");
      const moved = mark(frame.cell, "mv");
      if (moved) moved.scrollIntoView({ block: "nearest", inline: "nearest" });
    }

    function clearOverlay() {
      overlayAsked += 1;
      clearTimeout(overlayTimer);
      if (overlaid) overlaid.forEach(paint);
      overlaid = null;
      overlayNote.hidden = true;
    }
    // What could be known at this step, asked once the steps stop (a held arrow key asks once).
    function askOverlay() {
      const asked = ++overlayAsked;
      const step = at;
      overlayTimer = setTimeout(() => {
        fetch(`${root.dataset.base}/overlay?step=${step}`, { headers: { Accept: "application/json" } })
          .then((answer) => (answer.ok ? answer.json() : Promise.reject(answer)))
          .then((data) => {
            if (asked !== overlayAsked || step !== at || !overlayBox.checked) return;
            clearMarks();
            overlaid = paintOver(data.changes);
            showMarks();
            overlayNote.textContent = data.note;
            overlayNote.hidden = !data.note;
          })
          .catch(() => {
            if (asked !== overlayAsked) return;
            overlayNote.textContent = "What could be known did not load: the server did not answer.";
            overlayNote.hidden = false;
          });
      }, 120);
    }

    function goTo(target) {
      target = Math.max(0, Math.min(frames.length, target));
      clearOverlay();
      clearMarks();
      for (; at < target; at++) painted[at] = paintOver(frames[at].changes);
      for (; at > target; at--) painted[at - 1].forEach(paint);
      slider.value = String(at);
      const frame = frames[at - 1];
      caption.textContent = frame ? frame.caption : startCaption;
      caption.className = `replay-caption ${frame ? frame.kind : ""}${frame && frame.death ? " death" : ""}${frame && frame.back ? " back" : ""}`;
      showMarks();
      history.replaceState(null, "", `#step-${at}`);
      if (overlayBox.checked) askOverlay();
    }
    // One step, over the steps taken back when they are skipped (a run of them ends where it began).
    function step(direction) {
      let target = at + direction;
      while (skip.checked && target >= 1 && target <= frames.length && frames[target - 1].back) target += direction;
      goTo(target);
    }

    document.getElementById("replay-start").addEventListener("click", () => goTo(0));
    document.getElementById("replay-end").addEventListener("click", () => goTo(frames.length));
    document.getElementById("replay-back").addEventListener("click", () => step(-1));
    document.getElementById("replay-forward").addEventListener("click", () => step(1));
    slider.addEventListener("input", () => goTo(Number(slider.value)));
    overlayBox.addEventListener("change", () => {
      legend.hidden = !overlayBox.checked;
      if (overlayBox.checked) askOverlay();
      else clearOverlay();
    });
    root.addEventListener("click", (event) => {
      const link = event.target.closest && event.target.closest("a[data-step]");
      if (!link) return;
      event.preventDefault();
      goTo(Number(link.dataset.step));
    });
    document.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      // The slider and the text fields keep their own keys (a tick box has none of these).
      if (event.target.closest && event.target.closest("input:not([type=checkbox]), textarea, select")) return;
      const moves = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => goTo(0), End: () => goTo(frames.length) };
      if (!moves[event.key]) return;
      event.preventDefault();
      moves[event.key]();
    });
    // The box as the browser may have kept it over a reload.
    legend.hidden = !overlayBox.checked;
    const asked = /^#step-(\d+)$/.exec(location.hash);
    if (asked) goTo(Number(asked[1]));
    else if (overlayBox.checked) askOverlay();
  }

  // ----- a game -------------------------------------------------------------------------------

  function setup() {
    const board = document.getElementById("board");
    if (!board) return;
    const width = Number(board.dataset.width);
    const height = Number(board.dataset.height);
    const takes = new Set((board.dataset.actions || "").split(" ").filter(Boolean));
    const bombSide = Number(board.dataset.bombSide || 0);
    const flagModeButton = document.getElementById("flag-mode");
    const tip = document.getElementById("tip");
    let flagMode = false;
    let bombMode = false;
    let aimed = null; // on a touch screen, the bomb's centre tapped once: a second tap there drops it
    let gone = false; // the game was deleted elsewhere: the board takes nothing more
    let cursor = { x: 0, y: 0 };
    let suppressClick = false;
    let pressTimer = null;
    let pressed = null;

    function grid() {
      return document.getElementById("grid");
    }

    function note(text) {
      const line = document.getElementById("board-note");
      if (!line) return;
      line.textContent = text;
      clearTimeout(note.timer);
      note.timer = setTimeout(() => { line.textContent = ""; }, NOTE_MS);
    }

    // ----- the cells' size ----------------------------------------------------------------------

    // The player's zoom, per board size on this device (storage may be refused: then it lasts the page).
    const zoomKey = `kaboom:zoom:${width}x${height}`;
    let zoom = 1;
    try {
      zoom = Number(localStorage.getItem(zoomKey)) || 1;
    } catch (refused) { /* a private window */ }

    // The largest cell that fits the room the page leaves the board (the window less the header and
    // counters; on a wide screen, less the side column too), less the 1-px gaps and the border.
    function fittedCell() {
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

    // What the page keeps under the board in its column (a replay's steps): the board leaves it room.
    function heightBelow() {
      const column = [...board.parentElement.children];
      return column.slice(column.indexOf(board) + 1).reduce((sum, element) => {
        const style = getComputedStyle(element);
        if (element.hidden || style.position !== "static") return sum;
        return sum + element.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
      }, 0);
    }

    let baseCell = FINGER;
    function sizeCells() {
      baseCell = fittedCell();
      applyZoom();
    }

    function applyZoom() {
      const cell = zoom === 1 ? baseCell : Math.max(Math.min(ZOOMED_MIN, baseCell), Math.min(ZOOMED_MAX, baseCell * zoom));
      board.style.setProperty("--cell", `${Math.floor(cell)}px`);
    }

    // Zoom about a point of the board (the window's coordinates), which stays where it was.
    function setZoom(next, atX, atY) {
      const frame = board.getBoundingClientRect();
      const x = atX === undefined ? frame.left + board.clientWidth / 2 : atX;
      const y = atY === undefined ? frame.top + board.clientHeight / 2 : atY;
      const before = grid().getBoundingClientRect();
      const share = [(x - before.left) / before.width, (y - before.top) / before.height];
      zoom = Math.max(ZOOMS[0], Math.min(ZOOMS[ZOOMS.length - 1], next));
      try {
        localStorage.setItem(zoomKey, String(zoom));
      } catch (refused) { /* a private window */ }
      applyZoom();
      const after = grid().getBoundingClientRect();
      board.scrollLeft += after.left + share[0] * after.width - x;
      board.scrollTop += after.top + share[1] * after.height - y;
    }

    function zoomStep(direction) {
      const at = ZOOMS.findIndex((step) => step >= zoom - 1e-6);
      const index = at === -1 ? ZOOMS.length - 1 : at;
      setZoom(ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, index + direction))]);
    }

    document.getElementById("zoom-in")?.addEventListener("click", () => zoomStep(1));
    document.getElementById("zoom-out")?.addEventListener("click", () => zoomStep(-1));
    let resizing = null;
    window.addEventListener("resize", () => {
      cancelAnimationFrame(resizing);
      resizing = requestAnimationFrame(sizeCells);
    });
    sizeCells();

    // Two fingers on the board zoom it, about the point between them (the page itself keeps its scale,
    // and with it the counters). Touch events, as a pinch's second finger must be able to stop the pan.
    let pinch = null;
    function spread(touches) {
      return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
    }
    board.addEventListener("touchstart", (event) => {
      if (event.touches.length !== 2) return;
      cancelPress();
      pinch = { spread: spread(event.touches), zoom, frame: null };
    }, { passive: true });
    board.addEventListener("touchmove", (event) => {
      if (!pinch || event.touches.length !== 2) return;
      if (event.cancelable) event.preventDefault();
      const [a, b] = event.touches;
      const next = pinch.zoom * spread(event.touches) / pinch.spread;
      const at = [(a.clientX + b.clientX) / 2, (a.clientY + b.clientY) / 2];
      cancelAnimationFrame(pinch.frame);
      pinch.frame = requestAnimationFrame(() => setZoom(next, ...at));
    }, { passive: false });
    board.addEventListener("touchend", (event) => {
      if (pinch && event.touches.length < 2) {
        pinch = null;
        suppressClick = true; // the lifted fingers are not a tap
        setTimeout(() => { suppressClick = false; }, 400);
      }
    });

    // ----- where a pointer is -----------------------------------------------------------------

    // The cell under a pointer event; in the 1-px gaps between cells, the nearest cell's centre.
    function cellAt(event) {
      const hit = cellOf(event.target);
      if (hit || !grid().contains(event.target)) return hit;
      const first = document.getElementById("c-0-0").getBoundingClientRect();
      const pitch = first.width + 1;
      const x = Math.round((event.clientX - first.left - first.width / 2) / pitch);
      const y = Math.round((event.clientY - first.top - first.height / 2) / pitch);
      if (x < 0 || y < 0 || x >= width || y >= height) return null;
      return cellOf(document.getElementById(`c-${x}-${y}`));
    }

    // ----- moves ----------------------------------------------------------------------------------

    // Each move travels as the detail of a custom event; htmx queues the requests
    // (hx-sync="this:queue all") and fires configRequest when a queued one is finally
    // sent, with its own triggering event, so values never mix. A reveal or chord of a
    // cell already on its way is not sent twice (a double click by habit).
    const pending = new Set();
    function send(action, x, y) {
      if (gone) return;
      const key = `${action} ${x} ${y}`;
      if ((action === "reveal" || action === "chord") && pending.has(key)) return;
      if (action === "reveal" || action === "chord") pending.add(key);
      clearHint();
      stopBot();
      htmx.trigger(board, "kaboom:move", { action, x, y, key });
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
    board.addEventListener("htmx:afterRequest", (event) => {
      const trigger = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
      if (trigger && trigger.detail && trigger.detail.key) pending.delete(trigger.detail.key);
    });

    function setBombMode(on) {
      bombMode = on && takes.has("bomb");
      aimed = null;
      const bombButton = document.getElementById("bomb-mode");
      if (bombButton) bombButton.setAttribute("aria-pressed", String(bombMode));
      board.classList.toggle("bomb-mode", bombMode);
      // Aimed at once only where the keys drive the cursor; a pointer aims where it goes.
      aim(bombMode && document.documentElement.classList.contains("keyboard") ? cursor : null);
    }
    document.addEventListener("click", (event) => {
      if (event.target.closest && event.target.closest("#bomb-mode")) setBombMode(!bombMode);
    });

    // The bomb's square around a cell, moved inside the board as the rules move it.
    const AIM = ["aim", "aim-t", "aim-b", "aim-l", "aim-r"];
    function aim(at) {
      for (const old of board.querySelectorAll(".aim")) old.classList.remove(...AIM);
      if (!at || !bombSide) return;
      const left = Math.max(0, Math.min(at.x - Math.floor(bombSide / 2), width - bombSide));
      const top = Math.max(0, Math.min(at.y - Math.floor(bombSide / 2), height - bombSide));
      const right = Math.min(width, left + bombSide) - 1;
      const bottom = Math.min(height, top + bombSide) - 1;
      for (let y = top; y <= bottom; y++) {
        for (let x = left; x <= right; x++) {
          const cell = document.getElementById(`c-${x}-${y}`);
          if (!cell) continue;
          cell.classList.add("aim");
          cell.classList.toggle("aim-t", y === top);
          cell.classList.toggle("aim-b", y === bottom);
          cell.classList.toggle("aim-l", x === left);
          cell.classList.toggle("aim-r", x === right);
        }
      }
    }
    board.addEventListener("pointermove", (event) => {
      if (!bombMode || event.pointerType !== "mouse") return;
      const hit = cellAt(event);
      if (hit) aim(hit);
    });

    function primary(hit, touch) {
      moveCursor(hit.x, hit.y, false);
      if (bombMode) {
        // A finger cannot hover: its first tap aims, a second on the same cell drops.
        if (touch && !(aimed && aimed.x === hit.x && aimed.y === hit.y)) {
          aimed = { x: hit.x, y: hit.y };
          aim(aimed);
          note("Tap the same cell again to drop the bomb there.");
          return;
        }
        setBombMode(false);
        send("bomb", hit.x, hit.y);
      } else if (flagMode && takes.has("flag") && isCovered(hit.cell)) {
        send("flag", hit.x, hit.y);
      } else if (isNumber(hit.cell)) {
        if (takes.has("chord") && isSatisfied(hit.cell, hit.x, hit.y)) send("chord", hit.x, hit.y);
      } else if (hit.cell.classList.contains("u")) {
        send("reveal", hit.x, hit.y);
      }
    }

    let lastPointer = "mouse";
    board.addEventListener("pointerdown", (event) => {
      lastPointer = event.pointerType;
    });

    board.addEventListener("click", (event) => {
      const hit = takes.size ? cellAt(event) : null;
      if (hit) stopBot();
      if (suppressClick) {
        suppressClick = false;
        return;
      }
      if (event.button !== 0 || !hit) return;
      // Safe mode: a single click on a covered cell does nothing, a double click reveals.
      if (grid().classList.contains("safe-mode") && hit.cell.classList.contains("u") && !flagMode && !bombMode) {
        note(lastPointer === "mouse" ? "Safe mode: double-click to reveal." : "Safe mode: double-tap to reveal.");
        return;
      }
      primary(hit, lastPointer !== "mouse");
    });

    board.addEventListener("dblclick", (event) => {
      if (!grid().classList.contains("safe-mode")) return;
      const hit = cellAt(event);
      if (hit && hit.cell.classList.contains("u")) {
        note("");
        send("reveal", hit.x, hit.y);
      }
    });

    // The browser's menu never opens on the board: a right click is a flag.
    board.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      // A finger's long press is the timer's below (Android would flag a second time, to a question mark).
      if (lastPointer === "touch") return;
      const hit = cellAt(event);
      if (hit && takes.has("flag") && isCovered(hit.cell)) {
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
      const hit = cellAt(event);
      if (hit && takes.has("chord") && isNumber(hit.cell)) send("chord", hit.x, hit.y);
    });

    // Touch: iOS has no long-press contextmenu, so a held finger flags on a timer; the cell fills as it
    // is held, so the player sees the flag coming (and can slide away to cancel it).
    function cancelPress() {
      clearTimeout(pressTimer);
      pressTimer = null;
      if (pressed) pressed.classList.remove("pressing");
      pressed = null;
    }
    board.addEventListener("pointerdown", (event) => {
      if (event.pointerType === "mouse" || !takes.has("flag") || pinch) return;
      const hit = cellAt(event);
      if (!hit || !isCovered(hit.cell)) return;
      cancelPress();
      pressed = hit.cell;
      pressed.classList.add("pressing");
      pressTimer = setTimeout(() => {
        cancelPress();
        suppressClick = true;
        send("flag", hit.x, hit.y);
        if (navigator.vibrate) navigator.vibrate(20);
      }, LONG_PRESS_MS);
    });
    for (const type of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
      board.addEventListener(type, (event) => {
        if (type === "pointermove" && Math.abs(event.movementX) + Math.abs(event.movementY) < 4) return;
        if (pressTimer) cancelPress();
      });
    }

    // ----- Play for me --------------------------------------------------------------------------

    // The bot's moves one at a time, at the chosen pace. A step is sent only once the answer to the one
    // before is on the page, through the board's queue (behind any move in flight), with a deadline;
    // the bot stops on Stop, at the end of the game, on any answer that is not a move and when the
    // player moves or clicks a cell.
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
      if (!playing || stepInFlight || gone) return;
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

    // ----- the keyboard's cursor --------------------------------------------------------------

    // Focus stays on the grid container (it is never swapped by a move); the cursor is
    // aria-activedescendant plus a class, shown while the keyboard drives the page (.keyboard).
    function moveCursor(x, y, focus) {
      cursor = { x: Math.max(0, Math.min(width - 1, x)), y: Math.max(0, Math.min(height - 1, y)) };
      paintCursor(true);
      if (focus) grid().focus({ preventScroll: true });
    }

    // Only a cursor moved by the keys scrolls into view. Scrolling on focus made a click
    // land elsewhere: the press focused the board, the board scrolled to an old cursor,
    // and the release fell on another cell, so nothing was revealed.
    function paintCursor(scroll) {
      if (!takes.size) return; // a spectator's board has no cursor
      for (const old of board.querySelectorAll(".cur")) old.classList.remove("cur");
      const cell = document.getElementById(`c-${cursor.x}-${cursor.y}`);
      if (!cell) return;
      cell.classList.add("cur");
      grid().setAttribute("aria-activedescendant", cell.id);
      const keys = document.documentElement.classList.contains("keyboard");
      if (scroll === true && keys && document.activeElement === grid()) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
      if (keys) showTip(cell);
    }

    // Where a navigation key takes the cursor (moveCursor keeps it on the board), as grids do:
    // Home and End go to the ends of the row, with Ctrl to the corners of the board; Page Up
    // and Page Down move by ten rows.
    function cursorTarget(event) {
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
      if (event.target !== grid() || !takes.size) return;
      const target = cursorTarget(event);
      if (target) {
        event.preventDefault();
        moveCursor(target[0], target[1], false);
        if (bombMode) aim(cursor);
        return;
      }
      const cell = document.getElementById(`c-${cursor.x}-${cursor.y}`);
      if (!cell) return;
      if (event.key === "Enter") {
        event.preventDefault();
        if (bombMode || !takes.has("chord")) primary({ cell, x: cursor.x, y: cursor.y }, false);
        else if (isNumber(cell)) send("chord", cursor.x, cursor.y);
        else if (cell.classList.contains("u")) send("reveal", cursor.x, cursor.y);
      } else if (event.key === " " && takes.has("flag")) {
        event.preventDefault();
        if (isCovered(cell)) send("flag", cursor.x, cursor.y);
      }
    });

    grid().addEventListener("focus", () => paintCursor(false));

    function undo() {
      const button = document.getElementById("undo");
      if (button && !button.disabled) send("undo");
    }

    function hint(which) {
      const button = document.getElementById(which);
      if (button && !gone) htmx.trigger(button, "click");
    }

    // The Undo button comes anew with every answer (enabled only while there is something to take back).
    document.addEventListener("click", (event) => {
      if (event.target.closest && event.target.closest("#undo")) undo();
    });
    const helpButton = document.getElementById("help-button");
    if (helpButton) helpButton.addEventListener("click", () => send("help"));

    // After a setting or a button is clicked with a mouse or a finger (a keyboard's click has
    // detail 0), the keys go back to the board: Space on a focused button would press it again.
    document.addEventListener("click", (event) => {
      const control = event.target.closest && event.target.closest("#options input, .toolbar button, .board-tools button, #face, #bomb-mode");
      if (control && event.detail > 0 && grid() && takes.size) grid().focus({ preventScroll: true });
    });

    document.addEventListener("keydown", (event) => {
      // Only fields that take text keep the keys; a checkbox or a button does not.
      const typing = event.target.closest && event.target.closest(
        "input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), select, textarea, [contenteditable]"
      );
      if (event.key === "F3") {
        // The Pestov-Shalyto program's key: a proven-safe cell marked, or "I don't know".
        event.preventDefault();
        hint("show-button");
      } else if (typing || event.altKey || event.metaKey || openMenu()) {
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
      } else if (event.key === "+" || event.key === "=") {
        zoomStep(1);
      } else if (event.key === "-") {
        zoomStep(-1);
      }
    });

    // ----- what the panel points at on the board ------------------------------------------------

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

    // The chance of a mine over the cell under the pointer or the cursor, inside the board's frame:
    // above the cell, or below it where the frame's top would cut it off, and never past a side.
    function showTip(cell) {
      const chance = cell && cell.dataset.p;
      if (!tip) return;
      if (!chance) {
        tip.hidden = true;
        return;
      }
      tip.textContent = chance;
      tip.hidden = false;
      const frame = board.getBoundingClientRect();
      const box = cell.getBoundingClientRect();
      const size = tip.getBoundingClientRect();
      const left = Math.max(frame.left, Math.min(frame.right - size.width, box.left + box.width / 2 - size.width / 2));
      const above = box.top - size.height - 3;
      tip.style.left = `${left}px`;
      tip.style.top = `${above >= frame.top ? above : box.bottom + 3}px`;
    }
    board.addEventListener("pointerover", (event) => {
      if (event.pointerType !== "mouse") return;
      const hit = cellOf(event.target);
      showTip(hit && hit.cell);
    });
    board.addEventListener("pointerleave", () => showTip(null));
    board.addEventListener("scroll", () => showTip(null), { passive: true });

    // ----- the clock, and answers that are not moves ----------------------------------------------

    // The timer runs on the client from the server's count, and stops with the game.
    let timerBase = null;
    function resetTimer() {
      const timer = document.getElementById("timer");
      // A board that opens later (a race's countdown) starts its clock then.
      const opensIn = timer ? Number(timer.dataset.startsIn || 0) * 1000 : 0;
      timerBase = timer && !gone ? { timer, elapsed: Number(timer.dataset.elapsed), at: Date.now() + opensIn, running: timer.dataset.running === "yes" } : null;
    }
    setInterval(() => {
      const timer = document.getElementById("timer");
      // A timer just swapped in (a won game's, in tenths) is read before it is written over.
      if (timerBase && timer !== timerBase.timer) resetTimer();
      if (!timer || !timerBase || !timerBase.running) return;
      const seconds = timerBase.elapsed + Math.max(0, Math.floor((Date.now() - timerBase.at) / 1000));
      timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    }, 250);

    document.body.addEventListener("htmx:afterSettle", () => {
      // A swapped grid (a setting changed) took the focus with it: give it back, or Space would scroll the page.
      if (document.activeElement === document.body && grid() && takes.size) grid().focus({ preventScroll: true });
      resetTimer();
      paintCursor();
      showHint();
      if (bombMode) aim(aimed || cursor);
    });

    // A live page's poll that crossed a move of its own on the way brings the board the move's answer
    // brought already, without what the move said: it is not swapped in over it, unless who is connected
    // changed meanwhile, and then what the move said is kept. (htmx names the swap's target as the event's
    // elt; the element that asked is the request's.)
    let keptWords = null;
    function fromLive(event) {
      const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
      return Boolean(asker && asker.closest && asker.closest("#live"));
    }
    document.body.addEventListener("htmx:beforeSwap", (event) => {
      if (!fromLive(event)) return;
      const answer = event.detail.serverResponse || "";
      const brought = /id="version" name="version" value="(\d+)"/.exec(answer);
      const shown = document.getElementById("version");
      if (!shown || !brought || Number(brought[1]) > Number(shown.value)) return;
      const present = /id="presence" name="presence" value="([^"]*)"/.exec(answer);
      const shownPresent = document.getElementById("presence");
      // A room's game: the room moved on (a race's scoreboard, who is here) though this game did not.
      const room = /id="room-state" name="room_state" value="([^"]*)"/.exec(answer);
      const shownRoom = document.getElementById("room-state");
      if (room && shownRoom && room[1] !== shownRoom.value && Number(brought[1]) === Number(shown.value)) return;
      if (Number(brought[1]) < Number(shown.value) || !present || !shownPresent || present[1] === shownPresent.value) {
        event.detail.shouldSwap = false;
        return;
      }
      keptWords = document.getElementById("message");
    });
    document.body.addEventListener("htmx:afterSwap", (event) => {
      if (!keptWords || !fromLive(event)) return;
      const lines = document.querySelectorAll("#panel .seat-line");
      if (!document.getElementById("message") && lines.length) lines[lines.length - 1].after(keptWords);
      keptWords = null;
    });

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

    // Errors the server could not render as a fragment still get a visible line: its own words when
    // it sent a page that says them. A game gone (deleted in another tab, expired) stops here: the
    // clock stops, and the board takes nothing more.
    document.body.addEventListener("htmx:responseError", (event) => {
      const xhr = event.detail.xhr;
      const said = new DOMParser().parseFromString(xhr.responseText || "", "text/html").getElementById("message");
      panelLine(said ? said.textContent.trim() : `The server could not apply that (${xhr.status}). Reload the page to see the game as stored.`);
      if (xhr.status === 404) {
        gone = true;
        stopBot();
        timerBase = null;
        board.classList.add("gone");
        board.removeAttribute("hx-trigger");
      }
    });
    document.body.addEventListener("htmx:sendError", () => panelLine("The server cannot be reached."));

    resetTimer();
    paintCursor();
    showHint(); // a page loaded after a loss shows what could have been known
    // The board has the keys as soon as the page opens, with the page left where it is.
    if (takes.size) grid().focus({ preventScroll: true });
  }
})();
