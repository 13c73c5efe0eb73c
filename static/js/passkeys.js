// The player page's passkeys: adding one for this player, and signing this device in with one. The browser makes
// and uses the passkey (navigator.credentials); the server deals the options and checks the answers through the
// JSON API (/api/player/...), so this script only carries them across. The buttons show only where the browser
// can make passkeys (a secure page: https, or localhost).

import { _ } from "./words.js";

function part(name) {
  return document.querySelector(`[data-passkey="${name}"]`);
}

function say(text) {
  const status = part("status");
  if (status) status.textContent = text;
}

// A JSON request to the API; its answer's JSON, or an Error with the server's message (in the page's language).
async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  const read = answer.headers.get("Content-Type")?.startsWith("application/json") ? await answer.json() : {};
  if (!answer.ok) throw new Error(read.message || _("The server refused: try again in a moment."));
  return read;
}

// A ceremony the person turned down (or let run out) is no failure of theirs: said plainly.
function failed(error) {
  say(error.name === "NotAllowedError" || error.name === "AbortError" ? _("No passkey was used.") : error.message);
}

async function addPasskey(event) {
  event.preventDefault();
  const form = event.currentTarget;
  say(_("Making a passkey…"));
  try {
    const options = await post("/api/player/passkeys/options", {});
    const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    await post("/api/player/passkeys", { credential: made.toJSON(), name: form.elements.name.value });
    location.hash = "passkeys";
    location.reload();
  } catch (error) {
    failed(error);
  }
}

async function signIn() {
  say(_("Waiting for a passkey…"));
  try {
    const options = await post("/api/player/sign-in/options", {});
    const used = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    const signed = await post("/api/player/sign-in", { credential: used.toJSON() });
    location.assign(signed.next);
  } catch (error) {
    failed(error);
  }
}

export function startPasskeys() {
  const add = part("add");
  const signInPart = part("sign-in");
  if (!add && !signInPart) return;
  const able =
    window.isSecureContext && typeof PublicKeyCredential === "function" && "parseCreationOptionsFromJSON" in PublicKeyCredential;
  if (!able) return;
  part("none")?.setAttribute("hidden", "");
  if (add) {
    add.hidden = false;
    add.addEventListener("submit", addPasskey);
  }
  if (signInPart) {
    signInPart.hidden = false;
    signInPart.querySelector("button").addEventListener("click", signIn);
  }
}
