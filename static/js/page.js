// What every page does: F2, the New game menu, local times, the keyboard's mark, a countdown, Copy.

import { _ } from "./words.js";

export function openMenu() {
  return document.querySelector("details.menu[open]");
}

// Whether the keyboard drives the page: the board's focus ring and cursor show only then.
export function keyboardDrives() {
  return document.documentElement.classList.contains("keyboard");
}

// F2: a new game like this one (or, on the home page, like the latest).
function playAgainKey(event) {
  if (event.key !== "F2") return;
  const again = document.getElementById("again");
  if (!again) return;
  event.preventDefault();
  again.requestSubmit();
}

// A menu of the header (New game during a game, the languages): Escape or a click elsewhere folds it.
function foldMenuKey(event) {
  const menu = openMenu();
  if (event.key !== "Escape" || !menu) return;
  menu.open = false;
  menu.querySelector("summary").focus();
}

function foldMenuClick(event) {
  const menu = openMenu();
  if (menu && !menu.contains(event.target)) menu.open = false;
}

// Times as the server knows them (UTC), shown in the player's own time zone.
function localTimes(root) {
  for (const time of root.querySelectorAll("time[datetime]")) {
    const when = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(when.getTime())) time.textContent = when.toLocaleString(pageLocale(), { dateStyle: "medium", timeStyle: "short" });
  }
}

// The page's language as the browser writes dates in it: the reader's own region of it when their browser
// asks for one (en-GB on an English page), and the digits of the board (0-9) whatever the language's own.
export function pageLocale() {
  const language = document.documentElement.lang || "en";
  const regional = (navigator.languages || []).find((tag) => tag.split("-")[0].toLowerCase() === language);
  return new Intl.Locale(regional || language, { numberingSystem: "latn" });
}

// A countdown (a board that opens at a moment, the same for everyone) ticks from the server's seconds
// left, and says so when it is over.
function tickCountdowns() {
  for (const count of document.querySelectorAll("[data-countdown]")) {
    if (!count.dataset.until) count.dataset.until = String(Date.now() + Number(count.dataset.countdown) * 1000);
    const left = Math.ceil((Number(count.dataset.until) - Date.now()) / 1000);
    if (left > 0) {
      count.textContent = String(left);
    } else {
      const line = count.closest(".countdown") || count;
      line.textContent = _("Go!");
    }
  }
}

// A Copy button next to a link copies it (data-copy names the field), and says so.
function copyClick(event) {
  const button = event.target.closest && event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  if (!field) return;
  field.select();
  const done = () => { button.textContent = _("Copied"); };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => {});
}

export function startPage() {
  document.addEventListener("keydown", playAgainKey);
  document.addEventListener("keydown", foldMenuKey);
  document.addEventListener("click", foldMenuClick);
  // Captured: the page is marked before the board's own handler draws the cursor.
  document.addEventListener("keydown", (event) => {
    if (!event.altKey && !event.ctrlKey && !event.metaKey) document.documentElement.classList.add("keyboard");
  }, true);
  document.addEventListener("pointerdown", () => document.documentElement.classList.remove("keyboard"));
  // A page the browser kept whole (Back, Forward) shows the game as it was then: ask again.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) location.reload();
  });
  document.addEventListener("DOMContentLoaded", () => localTimes(document));
  setInterval(tickCountdowns, 200);
  document.addEventListener("click", copyClick);
}
