// A live page (a game's of several seats, a room's): the stream says when something changed, the poll
// stands in for it.

// How often a live page polls while its stream is open (every 3 s, as the page says, while it is not).
const POLL_BESIDE_STREAM_MS = 30000;

const live = {
  streamOpen: false,
  lastLook: Date.now(),
  // What a move said, kept over a poll's answer that only changed who is connected.
  keptWords: null,
};

function streamIs(open, event) {
  live.streamOpen = open;
  // Said on the element too, for whoever looks at the page (the tests do).
  if (event.target && event.target.id === "live") event.target.dataset.stream = open ? "open" : "down";
}

// A live page whose game is gone for its viewer (deleted; or a race's board after a rematch, which the room's
// link no longer shows) stops asking: its stream and its poll would ask again every few seconds for as long
// as the page stays open. A page that names where it belongs now (data-gone: the room) goes there.
function stopWhenGone(event) {
  const element = document.getElementById("live");
  const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (!element || event.detail.xhr.status !== 404 || !element.contains(asker)) return;
  // Swapped away by htmx, which cleans up as it removes: the stream closes and the poll ends.
  htmx.swap(element, "", { swapStyle: "delete" });
  if (element.dataset.gone) location.assign(element.dataset.gone);
}

// The poll looks only now and then while the stream is open (in case a proxy holds the events back).
// Each poll costs the server a look at the game or the room, and with hundreds of live pages the polls,
// not the streams, were most of its work (bench/load.py --live).
function pollOnlyWhenNeeded(event) {
  if (!event.detail.elt.closest || !event.detail.elt.closest("#live")) return;
  const told = event.detail.triggeringEvent && String(event.detail.triggeringEvent.type).startsWith("sse:");
  if (told || !live.streamOpen || Date.now() - live.lastLook >= POLL_BESIDE_STREAM_MS) {
    live.lastLook = Date.now();
    return;
  }
  event.preventDefault();
}

export function followLive() {
  document.addEventListener("htmx:responseError", stopWhenGone);
  document.addEventListener("htmx:sseOpen", (event) => streamIs(true, event));
  document.addEventListener("htmx:sseError", (event) => streamIs(false, event));
  document.addEventListener("htmx:confirm", pollOnlyWhenNeeded);
}

// htmx names the swap's target as the event's elt; the element that asked is the request's.
function fromLive(event) {
  const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
  return Boolean(asker && asker.closest && asker.closest("#live"));
}

// A live page's poll that crossed a move of its own on the way brings the board the move's answer
// brought already, without what the move said: it is not swapped in over it, unless who is connected
// changed meanwhile, and then what the move said is kept.
function skipStaleAnswer(event) {
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
  live.keptWords = document.getElementById("message");
}

function putBackWords(event) {
  if (!live.keptWords || !fromLive(event)) return;
  const lines = document.querySelectorAll("#panel .seat-line");
  if (!document.getElementById("message") && lines.length) lines[lines.length - 1].after(live.keptWords);
  live.keptWords = null;
}

// A game's page: its moves' answers and its polls' cross.
export function keepMovesOverPolls() {
  document.body.addEventListener("htmx:beforeSwap", skipStaleAnswer);
  document.body.addEventListener("htmx:afterSwap", putBackWords);
}
