// The words the script writes itself (a note, a button's new name, a line in the panel), in the page's
// language: the server puts that language's translations of them in the page (#words, JSON; an English
// page carries none, and the message is its own English). A message is a format string, as the server's:
// %(name)s is filled from `params`.

let catalog = null;

export function _(message, params = {}) {
  if (catalog === null) {
    const words = document.getElementById("words");
    catalog = words ? JSON.parse(words.textContent) : {};
  }
  return (catalog[message] || message).replace(/%\((\w+)\)s|%%/g, (found, name) => (name ? String(params[name]) : "%"));
}
