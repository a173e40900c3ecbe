// The table: a campaign as one member sees it. The invite link is /table#join=TOKEN; the token is
// traded once for a session cookie (HttpOnly, so this script never holds a credential) and the
// fragment is wiped. Everything shown comes from the server already redacted for this member: the
// page hides nothing itself.

import { element, objectFields, readObject, resolve, tagOf } from "/forms.js";

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
    const problem = body && body.errors && body.errors[0];
    super(problem ? problem.message + (problem.help ? ` (${problem.help})` : "") : `error ${status}`);
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
  for (const [name, inner] of entries) list.append(element("dt", {}, name.replaceAll("_", " ")), element("dd", {}, describe(inner, depth + 1)));
  return list;
}

async function loadCharacters() {
  characters = await api("GET", campaignPath("/characters"));
  const area = $("characters");
  area.replaceChildren();
  for (const character of characters) {
    const list = element("dl");
    for (const part of ["sheet", "state"]) {
      const value = character[part];
      if (value === null || value === undefined) continue;
      const fields = typeof value === "object" && !Array.isArray(value) ? value : { [part]: value };
      for (const [name, field] of Object.entries(fields)) {
        list.append(element("dt", {}, `${part === "sheet" ? "" : "state: "}${name.replaceAll("_", " ")}`));
        list.append(element("dd", {}, describe(field, 0)));
      }
    }
    if (!list.children.length) list.append(element("dt", {}, "sheet"), element("dd", {}, "kept by the game master"));
    area.append(
      element("article", { class: "sheet", "aria-label": character.name },
        element("h3", {}, `${character.name} `, element("small", {}, `(${character.rule_set})`)),
        list),
    );
  }
  const actable = characters.filter((c) => me.role === "gm" || me.characters.includes(c.name));
  const select = $("act-character");
  const chosen = select.value;
  select.replaceChildren(...actable.map((c) => element("option", { value: c.name }, c.name)));
  if (actable.some((c) => c.name === chosen)) select.value = chosen;
  $("act-section").hidden = actable.length === 0;
  if (actable.length) showActions();
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

function showActions() {
  const schema = actionSchema();
  const select = $("act-action");
  const chosen = select.value;
  const defs = schema ? schema.$defs || schema.definitions || {} : {};
  const names = schema ? actionVariants(schema).map((v) => tagOf(v, defs).value) : [];
  select.replaceChildren(...names.map((name) => element("option", { value: name }, name)));
  if (names.includes(chosen)) select.value = chosen;
  showFields();
}

function showFields() {
  const schema = actionSchema();
  const fields = $("act-fields");
  fields.replaceChildren(element("legend", {}, "Inputs"));
  $("odds").replaceChildren();
  actionParts = [];
  if (!schema) return;
  const defs = schema.$defs || schema.definitions || {};
  const variant = actionVariants(schema).find((v) => tagOf(v, defs).value === $("act-action").value);
  if (!variant) return;
  const character = currentCharacter();
  const info = (rules.get(character.rule_set).actions || []).find((a) => a.name === $("act-action").value);
  $("act-summary").textContent = (info && info.summary) || variant.description || "";
  $("odds-button").hidden = !(info && info.rolls);
  // The form starts from the schema's defaults, never from its examples: a roll made at once is
  // made with the inputs the rules take when none are given.
  actionParts = objectFields(variant, {}, defs, () => $("odds").replaceChildren(), fields);
  if (fields.children.length === 1) fields.append(element("p", { class: "note" }, "This action takes no inputs."));
}

function action() {
  return readObject(actionParts);
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
    if (Array.isArray(value) && value.every((row) => row && "fraction" in row)) {
      const table = element("table", {},
        element("caption", {}, `Exact odds: ${name.replaceAll("_", " ")}`),
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
      facts.append(element("dt", {}, name.replaceAll("_", " ")), element("dd", {}, JSON.stringify(value)));
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
    $("act-error").textContent = error.message;
  }
});

$("act-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("act-error").textContent = "";
  const name = $("act-character").value;
  try {
    const answer = await api("POST", campaignPath(`/characters/${encodeURIComponent(name)}/actions`), {
      action: action(),
      visibility: $("act-visibility").value,
    });
    $("roll-card").replaceChildren(card(answer.entry));
    add(answer.entry, false);
    await loadCharacters();
  } catch (error) {
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

function card(entry) {
  const title = `${entry.character || "table"}: ${entry.action}`;
  return element("article", { class: "roll-card", "aria-label": `roll ${entry.sequence}` },
    element("h3", {}, title),
    element("p", {}, hidden(entry) ? "?" : entry.summary, diceList(entry)),
    element("p", { class: "meta" }, `entry ${entry.sequence}, ${entry.visibility || "public"}`));
}

// ---- the log, live ----

function entryItem(entry) {
  const item = element("li", { class: "entry", value: entry.sequence, "data-sequence": entry.sequence });
  const text = hidden(entry)
    ? element("span", { class: "hidden-roll" }, "?")
    : element("span", {}, entry.summary);
  item.append(
    element("span", { class: "meta" }, `#${entry.sequence} ${entry.time.slice(11, 19)} ${entry.character || ""} `),
    text);
  if (entry.visibility && entry.visibility !== "public") {
    item.append(element("span", { class: "visibility" }, entry.visibility));
  }
  if ((entry.dice || []).length || hidden(entry)) item.append(diceList(entry));
  if (me.role === "gm" && entry.commitment && entry.salt && entry.visibility !== "public" && !revealed(entry.sequence)) {
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
  for (const entry of await api("GET", campaignPath("/log"))) add(entry, false);
}

function follow() {
  if (events) events.close();
  // The browser resumes with Last-Event-ID by itself; `after` covers a first connection and a
  // stream opened anew after one the browser gave up on.
  events = new EventSource(campaignPath(`/events?after=${last}`));
  events.addEventListener("open", () => {
    $("connection").textContent = "Live: new entries appear as they are made.";
    document.body.dataset.live = "true";
  });
  events.addEventListener("entry", async (event) => {
    const entry = JSON.parse(event.data);
    add(entry, true);
    if (entry.action === "reveal" || entry.action === "edit" || !entry.character) {
      // A reveal changes what an earlier entry shows; the listing is the one source of it.
      await loadLog();
    }
    if (entry.character) await loadCharacters();
  });
  events.addEventListener("error", () => {
    document.body.dataset.live = "false";
    $("connection").textContent = "Connection lost; reconnecting…";
    if (events.readyState === EventSource.CLOSED) setTimeout(follow, 2000);
  });
}

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

function chart(title, rows) {
  const width = 560, height = 200, left = 40, bottom = 30;
  const max = Math.max(1, ...rows.map((r) => Math.max(r.observed, r.expected)));
  const step = (width - left) / Math.max(1, rows.length);
  const svg = svgElement("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  svg.append(Object.assign(svgElement("title"), { textContent: title }));
  rows.forEach((row, index) => {
    const x = left + index * step;
    const h = ((height - bottom - 10) * row.observed) / max;
    const e = ((height - bottom - 10) * row.expected) / max;
    svg.append(svgElement("rect", { class: "observed", x: x + step * 0.15, y: height - bottom - h, width: step * 0.7, height: h }));
    svg.append(svgElement("rect", { class: "expected", x: x + step * 0.1, y: height - bottom - e, width: step * 0.8, height: e }));
    const label = svgElement("text", { x: x + step / 2, y: height - bottom + 14, "text-anchor": "middle" });
    label.textContent = String(row.label);
    svg.append(label);
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
      ...report.whole.dice.map((d) => ({ name: d.die, rows: d.faces, summary: d.summary })),
      ...report.whole.mechanics.map((m) => ({ name: m.mechanic, rows: m.outcomes, summary: m.summary })),
    ];
    if (!groups.length) area.append(element("p", {}, "No rolls you may see yet."));
    for (const group of groups) {
      const rows = group.rows.map((r) => ({
        label: typeof r.outcome === "object" ? JSON.stringify(r.outcome) : r.outcome,
        observed: r.observed,
        expected: r.expected,
      }));
      area.append(element("h4", {}, group.name), element("p", {}, group.summary),
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
