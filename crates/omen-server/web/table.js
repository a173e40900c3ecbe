// The table: a campaign as one member sees it. The invite link is /table#join=TOKEN; the token is
// traded once for a session cookie (HttpOnly, so this script never holds a credential) and the
// fragment is wiped. Everything shown comes from the server already redacted for this member: the
// page hides nothing itself.

import { cleanHelp, element, humanise, integerList, objectFields, playerVariant, readObject, resolve, tagOf } from "/forms.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const ROLE_NAMES = { gm: "game master", player: "player", observer: "observer" };

let me = null; // { campaign, role, characters, csrf }
let rules = new Map(); // rule set name -> its description, schemas included
let characters = [];
const entries = new Map(); // sequence -> entry: the log, deduplicated by sequence number
let events = null;
let last = 0; // the highest sequence shown

function svgElement(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

class ApiFailure extends Error {
  constructor(status, body) {
    // Every problem the server lists, in its words, each with its hint.
    const problems = (body && body.errors) || [];
    super(problems.length
      ? problems.map((p) => p.message + (p.help ? ` (${p.help})` : "")).join("; ")
      : `error ${status}`);
    this.status = status;
  }
}

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && me && me.csrf) headers["x-omen-csrf"] = me.csrf;
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiFailure(response.status, json);
  return json;
}

const campaignPath = (rest = "") => `/api/v1/campaigns/${encodeURIComponent(me.campaign)}${rest}`;

// ---- joining ----

async function join() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("join");
  if (token) {
    // The token leaves the address bar (and the history) before anything else happens.
    history.replaceState(null, "", location.pathname);
    try {
      me = await api("POST", "/api/v1/session", { token });
    } catch (error) {
      showJoin(`This invite does not open a table: ${error.message}`);
      return;
    }
  } else {
    try {
      me = await api("GET", "/api/v1/session");
    } catch {
      showJoin("");
      return;
    }
  }
  await start();
}

function showJoin(message) {
  $("who").textContent = "Not at a table yet.";
  $("join-section").hidden = false;
  $("join-error").textContent = message;
}

$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    me = await api("POST", "/api/v1/session", { token: $("join-token").value.trim() });
    $("join-token").value = "";
    $("join-section").hidden = true;
    await start();
  } catch (error) {
    $("join-error").textContent = `This token does not open a table: ${error.message}`;
  }
});

$("logout").addEventListener("click", async () => {
  try {
    await api("DELETE", "/api/v1/session");
  } finally {
    location.reload();
  }
});

async function start() {
  const owned = me.characters.length ? ` for ${me.characters.join(", ")}` : "";
  $("who").textContent = `${me.campaign}: you are the ${ROLE_NAMES[me.role] || me.role}${owned}.`;
  document.body.dataset.role = me.role;
  $("logout").hidden = false;
  $("table").hidden = false;
  // Dice rolled at the table are the game master's to give (the server refuses them from anyone
  // else): the control exists on the game master's page alone.
  if (me.role === "gm") $("act-fields").after(diceRow());
  for (const rule of await api("GET", "/api/v1/rules")) rules.set(rule.name, rule);
  await loadCharacters();
  await loadLog();
  follow();
}

// ---- characters and their sheets ----

// A sheet's value as the page shows it: a group of named values as a nested list of its own, a list
// of plain values on one line, anything deeper than a few levels as JSON.
function describe(value, depth) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "object") return String(value);
  if (depth >= 4) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (!value.length) return "none";
    if (value.every((v) => v === null || typeof v !== "object")) return value.map((v) => describe(v, depth + 1)).join(", ");
    return element("ol", { class: "sheet-list" }, ...value.map((v) => element("li", {}, describe(v, depth + 1))));
  }
  const entries = Object.entries(value);
  if (!entries.length) return "none";
  const list = element("dl", { class: "sheet-group" });
  for (const [name, inner] of entries) list.append(element("dt", {}, humanise(name)), element("dd", {}, describe(inner, depth + 1)));
  return list;
}

// A character's facts, each once: its state as it is now, and what of the sheet it was made from
// the state does not carry (for most rule sets the state starts as a copy of the sheet, so showing
// both showed everything twice).
function facts(character) {
  const asObject = (value, name) => (value === null || value === undefined ? {}
    : typeof value === "object" && !Array.isArray(value) ? value : { [name]: value });
  const state = asObject(character.state, "state");
  const sheet = asObject(character.sheet, "sheet");
  const merged = { ...state };
  for (const [name, value] of Object.entries(sheet)) if (!(name in merged)) merged[name] = value;
  return merged;
}

function sheetArticle(character) {
  const list = element("dl");
  for (const [name, field] of Object.entries(facts(character))) {
    list.append(element("dt", {}, humanise(name)), element("dd", {}, describe(field, 0)));
  }
  if (!list.children.length) list.append(element("dt", {}, "sheet"), element("dd", {}, "kept by the game master"));
  // The rule set's reading of the sheet for people (rating names, a personality's Asset and Flaw),
  // when it has one and the server lets this member see it; the stored form follows.
  const summary = character.summary && character.summary.text
    ? [element("p", { class: "sheet-summary" }, character.summary.text)]
    : [];
  // What the rules allow but find unusual in the sheet (dots left unspent, a rating above the
  // advancement cap), as every other face says it.
  const warnings = (character.warnings || []).length
    ? [element("ul", { class: "warnings", "aria-label": `warnings about ${character.name}` },
      ...character.warnings.map((w) => element("li", {}, `Warning: ${w}`)))]
    : [];
  return element("article", { class: "sheet", "aria-label": character.name },
    element("h3", {}, `${character.name} `, element("small", {}, `(${character.rule_set})`)),
    ...summary,
    ...warnings,
    list);
}

// The characters anew. The action form is drawn again only when the character it is for changes
// (or goes): a new log entry, anyone's, never touches a form someone is filling in.
async function loadCharacters() {
  characters = await api("GET", campaignPath("/characters"));
  $("characters").replaceChildren(...characters.map(sheetArticle));
  const actable = characters.filter((c) => me.role === "gm" || me.characters.includes(c.name));
  const select = $("act-character");
  const chosen = select.value;
  const names = actable.map((c) => c.name);
  const shown = [...select.options].map((o) => o.value);
  if (names.join("\n") !== shown.join("\n")) {
    select.replaceChildren(...actable.map((c) => element("option", { value: c.name }, c.name)));
    if (names.includes(chosen)) select.value = chosen;
  }
  $("act-section").hidden = actable.length === 0;
  const drawn = $("act-fields").dataset.for;
  const now = actable.length ? `${select.value}\n${currentCharacter().rule_set}` : "";
  if (now !== drawn) showActions();
}

// ---- actions as forms generated from the rule set's JSON Schemas ----
//
// The action schema is a tagged union; the menu above picks the variant and forms.js draws its
// fields (nested objects as fieldsets, lists of numbers or labels in one box each), shared with the
// seed games' page.

let actionParts = []; // the chosen variant's fields, read into the action when it is sent

function currentCharacter() {
  return characters.find((c) => c.name === $("act-character").value);
}

function actionSchema() {
  const character = currentCharacter();
  const rule = character && rules.get(character.rule_set);
  return rule && rule.schemas ? rule.schemas.action : null;
}

function actionVariants(schema) {
  const defs = schema.$defs || schema.definitions || {};
  return (schema.oneOf || schema.anyOf || [schema])
    .map((variant) => resolve(variant, defs))
    .filter((variant) => tagOf(variant, defs));
}

// `variant` as this member may fill it in: whole for the game master; for anyone else without the
// fields the rule set keeps for the game master, or null where the action needs one.
function forMember(variant, rule, defs) {
  if (me.role === "gm") return variant;
  return playerVariant(variant, (rule.game_master_only || {}).action || [], defs);
}

function showActions() {
  const schema = actionSchema();
  const select = $("act-action");
  const chosen = select.value;
  const defs = schema ? schema.$defs || schema.definitions || {} : {};
  const character = currentCharacter();
  const rule = character && rules.get(character.rule_set);
  const names = schema ? actionVariants(schema).filter((v) => forMember(v, rule, defs)).map((v) => tagOf(v, defs).value) : [];
  select.replaceChildren(...names.map((name) => element("option", { value: name }, humanise(name))));
  if (names.includes(chosen)) select.value = chosen;
  showFields();
}

function showFields() {
  const schema = actionSchema();
  const fields = $("act-fields");
  fields.replaceChildren(element("legend", {}, "Inputs"));
  const character = currentCharacter();
  fields.dataset.for = character ? `${character.name}\n${character.rule_set}` : "";
  $("odds").replaceChildren();
  actionParts = [];
  // Hidden until an action that rolls is drawn (a character of no rule set takes none).
  if ($("act-dice-row")) $("act-dice-row").hidden = true;
  if (!schema) return;
  const defs = schema.$defs || schema.definitions || {};
  const found = actionVariants(schema).find((v) => tagOf(v, defs).value === $("act-action").value);
  const variant = found && forMember(found, rules.get(character.rule_set), defs);
  if (!variant) return;
  const info = (rules.get(character.rule_set).actions || []).find((a) => a.name === $("act-action").value);
  $("act-summary").textContent = (info && info.summary) || cleanHelp(variant.description).help;
  $("odds-button").hidden = !(info && info.rolls);
  // Only an action that rolls uses dice; the box keeps what was typed while it is hidden.
  if ($("act-dice-row")) $("act-dice-row").hidden = !(info && info.rolls);
  // The form starts from the schema's defaults, never from its examples: a roll made at once is
  // made with the inputs the rules take when none are given.
  actionParts = objectFields(variant, {}, defs, () => $("odds").replaceChildren(), fields);
  if (fields.children.length === 1) fields.append(element("p", { class: "note" }, "This action takes no inputs."));
}

function action() {
  return readObject(actionParts);
}

// ---- dice rolled at the table (the game master's) ----
//
// One box beside the action's fields, not among them: the fields are drawn from the rule set's
// schema and redrawn when the action changes, while the dice are the request's (`dice`), for any
// action that rolls. The box is drawn once, so nothing but a roll that used its dice empties it.

function diceRow() {
  const input = element("input", {
    id: "act-dice", type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false",
    "aria-describedby": "act-dice-help act-dice-error",
  });
  input.addEventListener("input", () => diceGiven());
  return element("div", { id: "act-dice-row", class: "field dice-row" },
    element("label", { for: "act-dice" }, "Dice rolled at the table"),
    input,
    element("small", { id: "act-dice-help", class: "help" },
      "Optional: the faces rolled at the table, in the order the action rolls its dice, separated by spaces or commas "
      + "(e.g. 38, or 3 5 6). The entry logs them as given. Left empty, the log draws the dice."),
    element("p", { id: "act-dice-error", class: "error", role: "alert" }));
}

// The dice typed, when the action sends them: `{ dice }` (none when the box is empty, absent or
// hidden), or `{ error }` said beside the box.
function diceGiven() {
  const row = $("act-dice-row");
  if (!row || row.hidden) return {};
  const input = $("act-dice");
  const parsed = integerList(input.value);
  $("act-dice-error").textContent = parsed.error ? `Dice rolled at the table: ${parsed.error}` : "";
  if (parsed.error) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  if (parsed.error) return { error: parsed.error };
  return parsed.values.length ? { dice: parsed.values } : {};
}

$("act-character").addEventListener("change", showActions);
$("act-action").addEventListener("change", showFields);

// ---- odds, rolls and their cards ----

function oddsView(odds) {
  const area = element("div", { class: "odds-view" });
  if (odds === null || odds === undefined || (typeof odds === "object" && !Object.keys(odds).length)) {
    area.append(element("p", {}, "The game master keeps these odds."));
    return area;
  }
  const facts = element("dl");
  for (const [name, value] of Object.entries(odds)) {
    if (Array.isArray(value) && value.length && value.every((row) => row && "fraction" in row)) {
      const table = element("table", {},
        element("caption", {}, `Exact odds: ${humanise(name)}`),
        element("thead", {}, element("tr", {},
          element("th", { scope: "col" }, "Outcome"),
          element("th", { scope: "col" }, "Probability"),
          element("th", { scope: "col" }, "Percent"))));
      const body = element("tbody");
      for (const row of value) {
        body.append(element("tr", {},
          element("th", { scope: "row" }, typeof row.outcome === "object" ? JSON.stringify(row.outcome) : String(row.outcome)),
          element("td", {}, row.fraction),
          element("td", {}, row.percent === null ? "" : `${row.percent.toFixed(2)}%`)));
      }
      table.append(body);
      area.append(table);
    } else {
      facts.append(element("dt", {}, humanise(name)), element("dd", {}, JSON.stringify(value)));
    }
  }
  if (facts.children.length) area.prepend(facts);
  return area;
}

$("odds-button").addEventListener("click", async () => {
  $("act-error").textContent = "";
  try {
    const odds = await api("POST", campaignPath(`/characters/${encodeURIComponent($("act-character").value)}/odds`), { action: action() });
    $("odds").replaceChildren(element("h3", {}, "Before rolling"), oddsView(odds));
  } catch (error) {
    $("odds").replaceChildren();
    $("act-error").textContent = error.message;
  }
});

// Fresh entropy for each action's draw (see the README's trust model): the draw's secret was
// committed before this arrives, so the roll is chosen by no one, the server included.
function entropy() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

$("act-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("act-error").textContent = "";
  const name = $("act-character").value;
  const given = diceGiven();
  if (given.error) {
    // Nothing is sent: the box says why, and keeps the text to mend.
    $("roll-card").replaceChildren();
    $("act-error").textContent = "Not rolled: the dice rolled at the table are not a list of whole numbers.";
    $("act-dice").focus();
    return;
  }
  try {
    const request = { action: action(), visibility: $("act-visibility").value, entropy: entropy() };
    if (given.dice) request.dice = given.dice;
    const answer = await api("POST", campaignPath(`/characters/${encodeURIComponent(name)}/actions`), request);
    // Dice rolled once are used once: the next roll starts from an empty box.
    if (given.dice) $("act-dice").value = "";
    $("roll-card").replaceChildren(card(answer.entry));
    add(answer.entry, false);
    await loadCharacters();
  } catch (error) {
    // What is left from the roll before is not this one's answer.
    $("roll-card").replaceChildren();
    $("odds").replaceChildren();
    $("act-error").textContent = error.message;
  }
});

function hidden(entry) {
  return entry.redacted && (entry.result === null || entry.result === undefined) && entry.commitment;
}

function diceList(entry) {
  const list = element("ul", { class: "dice", "aria-label": "dice" });
  if (hidden(entry)) {
    list.append(element("li", { class: "die unknown" }, "?"));
    return list;
  }
  for (const die of entry.dice || []) list.append(element("li", { class: "die", title: die.die }, String(die.face)));
  return list;
}

// Dice entered by hand are marked as such wherever the entry is shown: the log says it of them.
function givenMark(entry) {
  return entry.dice_given ? [element("span", { class: "given" }, "dice rolled at the table")] : [];
}

// What the rules worked out, whole, as the log keeps it: the result and the character's state
// before and after (the summary gives the gist; a figure such as a spell's power or a price paid is
// only here). Whatever the member was not shown is left out; nothing when nothing is left. Folded
// under a summary, and focusable so a long line can be scrolled without a mouse.
function entryJson(entry) {
  const shown = {};
  for (const name of ["result", "state_before", "state_after"]) {
    if (entry[name] !== null && entry[name] !== undefined) shown[name] = entry[name];
  }
  if (hidden(entry) || !Object.keys(shown).length) return [];
  return [element("details", { class: "entry-json" },
    element("summary", {}, "Result and state as JSON"),
    element("pre", { tabindex: "0" }, JSON.stringify(shown, null, 2)))];
}

function card(entry) {
  const title = `${entry.character || "table"}: ${entry.action}`;
  return element("article", { class: "roll-card", "aria-label": `roll ${entry.sequence}` },
    element("h3", {}, title),
    element("p", {}, hidden(entry) ? "?" : entry.summary, diceList(entry), ...givenMark(entry)),
    ...entryJson(entry),
    element("p", { class: "meta" }, `entry ${entry.sequence}, ${entry.visibility || "public"}`));
}

// ---- the log, live ----

function entryItem(entry) {
  const item = element("li", { class: "entry", value: entry.sequence, "data-sequence": entry.sequence });
  const text = hidden(entry)
    ? element("span", { class: "hidden-roll" }, "?")
    : element("span", {}, entry.summary);
  item.append(
    // The list's own number is the sequence number (`value`), so the text does not repeat it.
    element("span", { class: "meta" }, `${entry.time.slice(11, 19)} ${entry.character || ""} `),
    text);
  if (entry.visibility && entry.visibility !== "public") {
    item.append(element("span", { class: "visibility" }, entry.visibility));
  }
  if ((entry.dice || []).length || hidden(entry)) item.append(diceList(entry));
  item.append(...givenMark(entry));
  if (mayReveal(entry)) {
    const button = element("button", { type: "button", class: "reveal" }, `Reveal #${entry.sequence}`);
    button.addEventListener("click", async () => {
      try {
        await api("POST", campaignPath(`/log/${entry.sequence}/reveal`));
      } catch (error) {
        $("verify-result").textContent = error.message;
      }
    });
    item.append(" ", button);
  }
  return item;
}

// The server's rule, read from what this member was shown: a `self` roll is its roller's alone to
// reveal (the game master's own included), and the store shows a `self` roll's content to its roller
// alone, so a `self` roll shown whole is this member's own. Every other hidden roll is the game
// master's to reveal. A public entry has no commitment, and nothing is revealed twice.
function mayReveal(entry) {
  if (!entry.commitment || !entry.visibility || entry.visibility === "public") return false;
  if (me.role === "observer" || revealed(entry.sequence)) return false;
  if (entry.visibility === "self") return !hidden(entry);
  return me.role === "gm";
}

function revealed(sequence) {
  for (const entry of entries.values()) {
    if (entry.action === "reveal" && entry.inputs && entry.inputs.sequence === sequence) return true;
  }
  return false;
}

function render() {
  const list = $("log");
  const items = [...entries.values()].sort((a, b) => b.sequence - a.sequence).map(entryItem);
  list.replaceChildren(...items);
}

// One entry, from an answer or an event: each sequence number is shown once.
function add(entry, announce) {
  const known = entries.has(entry.sequence);
  entries.set(entry.sequence, entry);
  last = Math.max(last, entry.sequence);
  if (!known && announce) {
    const words = hidden(entry) ? `${entry.character || "someone"} rolled, hidden: ?` : entry.summary;
    $("announcer").append(element("p", {}, `New entry ${entry.sequence}: ${words}`));
  }
  render();
  return known;
}

async function loadLog() {
  entries.clear();
  // The server lists the log a page at a time: ask for the page after the last entry until an
  // empty one (a page can end early when its entries are large, so a short page is not the end).
  for (let after = 0; ;) {
    const page = await api("GET", campaignPath(`/log?after=${after}&limit=1000`));
    if (!page.length) break;
    for (const entry of page) add(entry, false);
    after = page[page.length - 1].sequence;
  }
}

// Every open table page of one member shares one event stream. A browser keeps at most six HTTP/1.1
// connections to a server, and a stream holds one for as long as its page is open: with a stream
// per page, the seventh page of a table (or any request after six) would wait forever. One page
// holds a lock named after the member and follows the log; it passes each entry to the member's
// other pages on a broadcast channel, and when it closes, another page takes the lock and resumes
// from the last entry. Browsers without these APIs give each page its own stream.
let channel = null;
let leading = false;

function setLive(live) {
  document.body.dataset.live = String(live);
  $("connection").textContent = live
    ? "Live: new entries appear as they are made."
    : "Connection lost; reconnecting…";
}

async function onEntry(entry) {
  add(entry, true);
  if (entry.action === "reveal" || entry.action === "edit" || !entry.character) {
    // A reveal changes what an earlier entry shows; the listing is the one source of it.
    await loadLog();
  }
  if (entry.character) await loadCharacters();
}

function follow() {
  if (!("locks" in navigator) || typeof BroadcastChannel === "undefined") {
    stream();
    return;
  }
  // One member's pages, not the campaign's: a game master's stream carries what a player's must not.
  const name = `omen-events:${JSON.stringify([me.campaign, me.role, me.characters])}`;
  channel = new BroadcastChannel(name);
  let caughtUp = false;
  channel.addEventListener("message", async ({ data }) => {
    if (data.kind === "hello" && leading) {
      channel.postMessage({ kind: "live", live: document.body.dataset.live === "true" });
    } else if (data.kind === "live" && !leading) {
      setLive(data.live);
      // Entries written between this page's listing and its joining the channel came before
      // the channel could pass them on: ask for them once.
      if (data.live && !caughtUp) {
        caughtUp = true;
        await catchUp();
      }
    } else if (data.kind === "entry" && !leading) {
      await onEntry(data.entry);
    }
  });
  $("connection").textContent = "Connecting…";
  channel.postMessage({ kind: "hello" });
  // The lock is held for as long as the page lives (the promise never settles).
  navigator.locks.request(name, () => {
    leading = true;
    stream();
    return new Promise(() => {});
  });
}

async function catchUp() {
  for (let after = last; ;) {
    const page = await api("GET", campaignPath(`/log?after=${after}&limit=1000`));
    if (!page.length) break;
    for (const entry of page) add(entry, true);
    after = page[page.length - 1].sequence;
  }
}

function stream() {
  if (events) events.close();
  // The browser resumes with Last-Event-ID by itself; `after` covers a first connection, a stream
  // opened anew after one the browser gave up on, and a page taking over from one that closed.
  events = new EventSource(campaignPath(`/events?after=${last}`));
  events.addEventListener("open", () => {
    setLive(true);
    if (channel) channel.postMessage({ kind: "live", live: true });
  });
  events.addEventListener("entry", async (event) => {
    const entry = JSON.parse(event.data);
    if (channel) channel.postMessage({ kind: "entry", entry });
    await onEntry(entry);
  });
  events.addEventListener("error", () => {
    setLive(false);
    if (channel) channel.postMessage({ kind: "live", live: false });
    if (events.readyState === EventSource.CLOSED) setTimeout(stream, 2000);
  });
}

// A page left for another can be kept whole in the browser's back-forward cache, and its stream
// with it: a browser holds at most six connections to one server, so after a few tables opened
// one after another in one tab, the next page's requests would wait for ever. The stream closes
// when the page is left and resumes from the last entry shown if the page comes back.
window.addEventListener("pagehide", () => {
  if (events) events.close();
  events = null;
});
window.addEventListener("pageshow", (event) => {
  if (event.persisted && me && (leading || !channel)) stream();
});

// ---- verify, receipts, fairness ----

$("verify-button").addEventListener("click", async () => {
  try {
    const report = await api("GET", campaignPath("/verify"));
    $("verify-result").textContent = report.ok
      ? `The log verifies: every hash, link and signature checks (${entries.size} entries).`
      : `The log does NOT verify: ${report.problems.length} problem(s), first at entry ${report.problems[0].sequence}.`;
  } catch (error) {
    $("verify-result").textContent = error.message;
  }
});

$("receipts-button").addEventListener("click", async () => {
  const head = await api("GET", campaignPath("/head"));
  const receipts = [...entries.values()].sort((a, b) => a.sequence - b.sequence).map((e) => ({
    receipt: `${e.sequence}:${e.hash.slice(0, 16)}`,
    sequence: e.sequence,
    time: e.time,
    hash: e.hash,
    previous_hash: e.previous_hash,
    commitment: e.commitment || null,
    signature: e.signature || null,
    summary: hidden(e) ? null : e.summary,
  }));
  const blob = new Blob([JSON.stringify({ campaign: me.campaign, head, receipts }, null, 2)], { type: "application/json" });
  const link = element("a", { href: URL.createObjectURL(blob), download: `${me.campaign}-receipts.json` });
  document.body.append(link);
  link.click();
  link.remove();
});

// A "nice" step for an axis from 0 to `max` with about `count` ticks: 1, 2 or 5 times a power of ten.
function tickStep(max, count) {
  const rough = max / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) || power * 10;
}

function chart(title, rows) {
  const width = 560, height = 220, left = 56, bottom = 30, top = 10;
  const plot = height - bottom - top;
  const step = (width - left) / Math.max(1, rows.length);
  const yStep = tickStep(Math.max(1, ...rows.map((r) => Math.max(r.observed, r.expected))), 4);
  const max = yStep * Math.ceil(Math.max(1, ...rows.map((r) => Math.max(r.observed, r.expected))) / yStep);
  const svg = svgElement("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  svg.append(Object.assign(svgElement("title"), { textContent: title }));
  // The y axis: the number of rolls, with a few round ticks and its name.
  svg.append(svgElement("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }));
  for (let value = 0; value <= max; value += yStep) {
    const y = height - bottom - (plot * value) / max;
    svg.append(svgElement("line", { class: "tick", x1: left - 4, y1: y, x2: left, y2: y }));
    const tick = svgElement("text", { class: "y-label", x: left - 6, y: y + 4, "text-anchor": "end" });
    tick.textContent = String(Math.round(value * 100) / 100);
    svg.append(tick);
  }
  const axisName = svgElement("text", { class: "y-name", x: 12, y: top + plot / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${top + plot / 2})` });
  axisName.textContent = "rolls";
  svg.append(axisName);
  // Labels on the x axis: every `every`-th, so the widest label (about 7 units a character) never
  // runs into the next; a d50's 50 faces get every fifth.
  const widest = Math.max(1, ...rows.map((r) => String(r.label).length)) * 7 + 4;
  const every = Math.max(1, Math.ceil(widest / step));
  rows.forEach((row, index) => {
    const x = left + index * step;
    const h = (plot * row.observed) / max;
    const e = (plot * row.expected) / max;
    svg.append(svgElement("rect", { class: "observed", x: x + step * 0.15, y: height - bottom - h, width: step * 0.7, height: h }));
    svg.append(svgElement("rect", { class: "expected", x: x + step * 0.1, y: height - bottom - e, width: step * 0.8, height: e }));
    if (index % every === 0) {
      const label = svgElement("text", { class: "x-label", x: x + step / 2, y: height - bottom + 14, "text-anchor": "middle" });
      label.textContent = String(row.label);
      svg.append(label);
    }
  });
  return svg;
}

function fairnessTable(caption, rows) {
  const table = element("table", {},
    element("caption", {}, caption),
    element("thead", {}, element("tr", {},
      element("th", { scope: "col" }, "Outcome"),
      element("th", { scope: "col" }, "Observed"),
      element("th", { scope: "col" }, "Expected"))));
  const body = element("tbody");
  for (const row of rows) {
    body.append(element("tr", {},
      element("th", { scope: "row" }, String(row.label)),
      element("td", {}, String(row.observed)),
      element("td", {}, row.expected.toFixed(2))));
  }
  table.append(body);
  return table;
}

$("fairness-button").addEventListener("click", async () => {
  const area = $("fairness");
  try {
    const report = await api("GET", campaignPath("/fairness"));
    area.replaceChildren(element("h3", {}, "Fairness"),
      element("ul", { class: "legend" },
        element("li", {}, element("span", { class: "swatch-observed" }, "■"), " observed"),
        element("li", {}, element("span", { class: "swatch-expected" }, "□"), " expected")));
    const groups = [
      ...report.whole.dice.map((d) => ({ name: d.die, rows: d.faces, summary: d.summary, power: d.power })),
      ...report.whole.mechanics.map((m) => ({ name: m.mechanic, rows: m.outcomes, summary: m.summary, power: m.power })),
    ];
    if (!groups.length) area.append(element("p", {}, "No rolls you may see yet."));
    for (const group of groups) {
      const rows = group.rows.map((r) => ({
        label: typeof r.outcome === "object" ? JSON.stringify(r.outcome) : r.outcome,
        observed: r.observed,
        expected: r.expected,
      }));
      // What the verdict can see: how often this test catches dice with a stated bias.
      const power = element("ul", { class: "power" },
        ...(group.power || []).map((p) => element("li", {}, p.text)));
      area.append(element("h4", {}, group.name), element("p", {}, group.summary), power,
        fairnessTable(`${group.name}: observed against expected`, rows),
        chart(`${group.name}: observed against expected`, rows));
    }
  } catch (error) {
    area.replaceChildren(element("p", { class: "error" }, error.message));
  }
});

// An invite link opened in a tab already on this page changes only the fragment: load anew, so the
// token is traded as on a first visit.
window.addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).has("join")) location.reload();
});

join();
