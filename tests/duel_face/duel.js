// The Duel's face (tests only): what a mode's own script does from tests/ alone, through the board's
// interface (static/js/game.js's onGame). D arms a tool of the face's: the next click, tap or Enter on a cell
// is the tool's, which says so under the board and reveals the cell.

import { onGame } from "/static/js/game.js";

onGame((face) => {
  const tool = {
    primary(hit) {
      face.disarm(tool);
      face.board.classList.remove("duel-aiming");
      face.note(`Duel: column ${hit.x + 1}, row ${hit.y + 1}.`);
      face.send("reveal", hit.x, hit.y);
    },
  };
  face.key("d", () => {
    face.arm(tool);
    face.board.classList.add("duel-aiming");
    face.note("Duel: pick a cell.");
  });
});
