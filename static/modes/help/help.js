// Ask for help's face: the Help button in the toolbar (templates/modes/help/toolbar.html), and A.

import { onGame } from "/static/js/game.js";

onGame((face) => {
  const button = document.getElementById("help-button");
  if (!button) return;
  button.addEventListener("click", () => face.send("help"));
  face.key("a", () => face.send("help"));
});
