// Flags' face: the bomb. The player behind may drop it once a game: its button (in the panel, swapped in
// and out with it) or B arms it, and its square follows the pointer or the keys' cursor until a click, a
// second tap on the same cell, or Enter drops it there.

import { onGame } from "/static/js/game.js";
import { _ } from "/static/js/words.js";

const AIM = ["aim", "aim-t", "aim-b", "aim-l", "aim-r"];

onGame((face) => {
  const side = Number(face.data.bombSide || 0);
  const bomb = {
    armed: false,
    aimed: null, // on a touch screen, the bomb's centre tapped once: a second tap there drops it
    tool: { primary: drop, cursor: aim },
  };

  function button() {
    return document.getElementById("bomb-mode");
  }

  // The bomb's square around a cell, moved inside the board as the rules move it.
  function aim(at) {
    for (const old of face.board.querySelectorAll(".aim")) old.classList.remove(...AIM);
    if (!at || !side) return;
    const left = Math.max(0, Math.min(at.x - Math.floor(side / 2), face.width - side));
    const top = Math.max(0, Math.min(at.y - Math.floor(side / 2), face.height - side));
    const right = Math.min(face.width, left + side) - 1;
    const bottom = Math.min(face.height, top + side) - 1;
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

  function arm(on) {
    bomb.armed = on && face.takes("bomb");
    bomb.aimed = null;
    if (bomb.armed) face.arm(bomb.tool);
    else face.disarm(bomb.tool);
    if (button()) button().setAttribute("aria-pressed", String(bomb.armed));
    face.board.classList.toggle("bomb-mode", bomb.armed);
    // Aimed at once only where the keys drive the cursor; a pointer aims where it goes.
    aim(bomb.armed && face.keyboard() ? face.cursor() : null);
  }

  // A finger cannot hover: its first tap aims, a second on the same cell drops.
  function drop(hit, touch) {
    const { aimed } = bomb;
    if (touch && !(aimed && aimed.x === hit.x && aimed.y === hit.y)) {
      bomb.aimed = { x: hit.x, y: hit.y };
      aim(bomb.aimed);
      face.note(_("Tap the same cell again to drop the bomb there."));
      return;
    }
    arm(false);
    face.send("bomb", hit.x, hit.y);
  }

  document.addEventListener("click", (event) => {
    if (!(event.target.closest && event.target.closest("#bomb-mode"))) return;
    arm(!bomb.armed);
    face.keysBack(event);
  });
  face.key("b", () => {
    if (button()) arm(!bomb.armed);
  });
  face.board.addEventListener("pointermove", (event) => {
    if (!bomb.armed || event.pointerType !== "mouse") return;
    const hit = face.cellUnder(event);
    if (hit) aim(hit);
  });
  // The answer's cells came without the square: drawn again where it was.
  document.body.addEventListener("htmx:afterSettle", () => {
    if (bomb.armed) aim(bomb.aimed || face.cursor());
  });
});
