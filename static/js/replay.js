// A finished game's replay. The board comes as it stood before the first step; each frame holds the cells
// a step changed, drawn as the game page draws them. Stepping forward keeps what it painted over, so
// stepping back restores it.

import { cellAt } from "./cells.js";
import { _ } from "./words.js";

const OVERLAY_DELAY_MS = 120;

const replay = {
  root: null,
  frames: [],
  slider: null,
  caption: null,
  skip: null,
  overlayBox: null,
  overlayNote: null,
  legend: null,
  startCaption: "",
  painted: [], // painted[i]: the looks step i + 1 painted over
  at: 0, // the steps played
  overlaid: null, // the looks the overlay painted over
  overlayAsked: 0,
  overlayTimer: null,
  marks: [],
};

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
  replay.marks.forEach(([cell, name]) => cell.classList.remove(name));
  replay.marks = [];
}

function mark(at, name) {
  const cell = at && cellAt(at[0], at[1]);
  if (!cell) return null;
  cell.classList.add(name);
  replay.marks.push([cell, name]);
  return cell;
}

function showMarks() {
  const frame = replay.frames[replay.at - 1];
  if (!frame) return;
  frame.proof.forEach((cell) => mark(cell, "proof"));
  mark(frame.example, "hl");
  const moved = mark(frame.cell, "mv");
  if (moved) moved.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function clearOverlay() {
  replay.overlayAsked += 1;
  clearTimeout(replay.overlayTimer);
  if (replay.overlaid) replay.overlaid.forEach(paint);
  replay.overlaid = null;
  replay.overlayNote.hidden = true;
}

// What could be known at this step, asked once the steps stop (a held arrow key asks once).
function askOverlay() {
  const asked = ++replay.overlayAsked;
  const step = replay.at;
  replay.overlayTimer = setTimeout(() => {
    fetch(`${replay.root.dataset.base}/overlay?step=${step}`, { headers: { Accept: "application/json" } })
      .then((answer) => (answer.ok ? answer.json() : Promise.reject(answer)))
      .then((data) => {
        if (asked !== replay.overlayAsked || step !== replay.at || !replay.overlayBox.checked) return;
        clearMarks();
        replay.overlaid = paintOver(data.changes);
        showMarks();
        replay.overlayNote.textContent = data.note;
        replay.overlayNote.hidden = !data.note;
      })
      .catch(() => {
        if (asked !== replay.overlayAsked) return;
        replay.overlayNote.textContent = _("What could be known did not load: the server did not answer.");
        replay.overlayNote.hidden = false;
      });
  }, OVERLAY_DELAY_MS);
}

function goTo(target) {
  const { frames, painted } = replay;
  target = Math.max(0, Math.min(frames.length, target));
  clearOverlay();
  clearMarks();
  for (; replay.at < target; replay.at++) painted[replay.at] = paintOver(frames[replay.at].changes);
  for (; replay.at > target; replay.at--) painted[replay.at - 1].forEach(paint);
  replay.slider.value = String(replay.at);
  const frame = frames[replay.at - 1];
  replay.caption.textContent = frame ? frame.caption : replay.startCaption;
  replay.caption.className = `replay-caption ${frame ? frame.kind : ""}${frame && frame.death ? " death" : ""}${frame && frame.back ? " back" : ""}`;
  showMarks();
  history.replaceState(null, "", `#step-${replay.at}`);
  if (replay.overlayBox.checked) askOverlay();
}

// One step, over the steps taken back when they are skipped (a run of them ends where it began).
function step(direction) {
  const { frames } = replay;
  let target = replay.at + direction;
  while (replay.skip.checked && target >= 1 && target <= frames.length && frames[target - 1].back) target += direction;
  goTo(target);
}

function stepKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  // The slider and the text fields keep their own keys (a tick box has none of these).
  if (event.target.closest && event.target.closest("input:not([type=checkbox]), textarea, select")) return;
  // Right to left, the controls run from the start at the right, and so do the arrow keys.
  const backward = document.documentElement.dir === "rtl" ? 1 : -1;
  const moves = {
    ArrowLeft: () => step(backward),
    ArrowRight: () => step(-backward),
    Home: () => goTo(0),
    End: () => goTo(replay.frames.length),
  };
  if (!moves[event.key]) return;
  event.preventDefault();
  moves[event.key]();
}

function stepLink(event) {
  const link = event.target.closest && event.target.closest("a[data-step]");
  if (!link) return;
  event.preventDefault();
  goTo(Number(link.dataset.step));
}

function overlayChanged() {
  replay.legend.hidden = !replay.overlayBox.checked;
  if (replay.overlayBox.checked) askOverlay();
  else clearOverlay();
}

export function startReplay() {
  const root = document.getElementById("replay");
  if (!root) return;
  Object.assign(replay, {
    root,
    frames: JSON.parse(root.dataset.frames),
    slider: document.getElementById("replay-slider"),
    caption: document.getElementById("replay-caption"),
    skip: document.getElementById("replay-skip"),
    overlayBox: document.getElementById("replay-overlay"),
    overlayNote: document.getElementById("replay-overlay-note"),
    legend: document.getElementById("replay-legend"),
  });
  replay.startCaption = replay.caption.textContent;
  document.getElementById("replay-start").addEventListener("click", () => goTo(0));
  document.getElementById("replay-end").addEventListener("click", () => goTo(replay.frames.length));
  document.getElementById("replay-back").addEventListener("click", () => step(-1));
  document.getElementById("replay-forward").addEventListener("click", () => step(1));
  replay.slider.addEventListener("input", () => goTo(Number(replay.slider.value)));
  replay.overlayBox.addEventListener("change", overlayChanged);
  root.addEventListener("click", stepLink);
  document.addEventListener("keydown", stepKey);
  // The box as the browser may have kept it over a reload.
  replay.legend.hidden = !replay.overlayBox.checked;
  const asked = /^#step-(\d+)$/.exec(location.hash);
  if (asked) goTo(Number(asked[1]));
  else if (replay.overlayBox.checked) askOverlay();
}
