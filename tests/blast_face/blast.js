// Blast's face (tests only): a tool for an action of the mode's own that names a cell, from tests/ alone.
// Its button or X arms it; while armed, the square a blast would open follows the pointer or the keys'
// cursor, and the next click, tap or Enter on a cell blasts there.

import { onGame } from "/static/js/game.js";

onGame((face) => {
  // The mode says how far a blast reaches (Mode.board_data): the script draws what the rules open.
  const reach = Number(face.data.blastReach || 0);
  const blast = { armed: false, tool: { primary: fire, cursor: aim } };
  const button = document.getElementById("blast-button");

  function aim(at) {
    for (const old of face.board.querySelectorAll(".blast-aim")) old.classList.remove("blast-aim");
    if (!at) return;
    for (let y = at.y - reach; y <= at.y + reach; y++) {
      for (let x = at.x - reach; x <= at.x + reach; x++) {
        const cell = document.getElementById(`c-${x}-${y}`);
        if (cell) cell.classList.add("blast-aim");
      }
    }
  }

  function arm(on) {
    blast.armed = on && face.takes("blast");
    if (blast.armed) face.arm(blast.tool);
    else face.disarm(blast.tool);
    if (button) button.setAttribute("aria-pressed", String(blast.armed));
    face.board.classList.toggle("blast-armed", blast.armed);
    aim(blast.armed && face.keyboard() ? face.cursor() : null);
  }

  function fire(hit) {
    arm(false);
    face.note(`Blast at column ${hit.x + 1}, row ${hit.y + 1}.`);
    face.send("blast", hit.x, hit.y);
  }

  if (button) {
    button.addEventListener("click", (event) => {
      arm(!blast.armed);
      face.keysBack(event);
    });
  }
  face.key("x", () => arm(!blast.armed));
  face.board.addEventListener("pointermove", (event) => {
    if (!blast.armed || event.pointerType !== "mouse") return;
    const hit = face.cellUnder(event);
    if (hit) aim(hit);
  });
});
