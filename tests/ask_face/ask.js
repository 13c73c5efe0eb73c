// Ask's face (tests only): an action of the mode's own that names no cell, sent by its toolbar button
// (templates in tests/ask_face/) or K, from tests/ alone.

import { onGame } from "/static/js/game.js";

onGame((face) => {
  const button = document.getElementById("ask-button");
  if (!button || !face.takes("ask")) return;
  button.addEventListener("click", (event) => {
    face.send("ask");
    face.keysBack(event);
  });
  face.key("k", () => face.send("ask"));
});
