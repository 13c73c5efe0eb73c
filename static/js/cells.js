// Reading the board's cells as the server drew them: a cell's place is in its id (c-x-y), what it
// shows in its classes (u covered, f flagged, n1 to n8 a number).

export function cellAt(x, y) {
  return document.getElementById(`c-${x}-${y}`);
}

export function cellOf(target) {
  const cell = target && target.closest ? target.closest(".c") : null;
  if (!cell || !cell.id.startsWith("c-")) return null;
  const [, x, y] = cell.id.split("-");
  return { cell, x: Number(x), y: Number(y) };
}

export function isCovered(cell) {
  return cell.classList.contains("u") || cell.classList.contains("f");
}

export function numberOf(cell) {
  const match = /\bn([1-8])\b/.exec(cell.className);
  return match ? Number(match[1]) : 0;
}

export function isNumber(cell) {
  return numberOf(cell) > 0;
}

// A number whose flags are all placed and that still has covered neighbours:
// a plain click on it chords. Other numbers ignore plain clicks.
export function isSatisfied(cell, x, y) {
  let flags = 0;
  let covered = 0;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const other = (dx || dy) && cellAt(x + dx, y + dy);
      if (!other) continue;
      if (other.classList.contains("f")) flags++;
      else if (other.classList.contains("u")) covered++;
    }
  }
  return flags === numberOf(cell) && covered > 0;
}
