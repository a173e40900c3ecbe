// The seed games' page: everything on it comes from the rule sets as the server lists them
// (GET /api/v1/rules): the analyses and their input schemas, the reference tables, the sheet and
// action schemas. No game is named here; a new rule set gets its page without a change to this file.

import { element, field, objectFields, readObject, resolve, tagOf, union } from "/forms.js";

const $ = (id) => document.getElementById(id);
let rules = [];
let game = null;
const timers = new Map();
const controllers = new Map();

// ---- the address: the game and each form's values, never sent to the server ----

function readFragment() {
  return new URLSearchParams(location.hash.slice(1));
}

function writeFragment(key, value) {
  const params = readFragment();
  if (value === undefined) params.delete(key);
  else params.set(key, JSON.stringify(value));
  history.replaceState(null, "", "#" + params.toString());
}

function fragmentValue(key) {
  const text = readFragment().get(key);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---- requests: one at a time per purpose, the previous one cancelled ----

async function request(purpose, method, path, body) {
  controllers.get(purpose)?.abort();
  const controller = new AbortController();
  controllers.set(purpose, controller);
  const init = { method, signal: controller.signal, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = { errors: [{ message: `the server answered ${response.status}` }] };
  }
  if (controllers.get(purpose) === controller) controllers.delete(purpose);
  return { ok: response.ok, json };
}

function later(purpose, work) {
  clearTimeout(timers.get(purpose));
  timers.set(purpose, setTimeout(work, 300));
}

function problems(json) {
  // The alert is a box around the list: a list given the role "alert" is no longer a list.
  const list = element("ul", { class: "problems" });
  for (const e of json.errors ?? []) {
    list.append(element("li", {}, e.message + (e.help ? ` (${e.help})` : "")));
  }
  return element("div", { role: "alert" }, list);
}

// What the rules allow but find unusual (a sheet's dots left unspent, a rating above the
// advancement cap), as the server words it: beside the answer, never instead of it.
function warningList(warnings, about) {
  if (!(warnings ?? []).length) return [];
  return [element("ul", { class: "warnings", "aria-label": `warnings about ${about}` },
    ...warnings.map((w) => element("li", {}, `Warning: ${w}`)))];
}

// ---- results: tables from any JSON the rules answer with ----

function table(caption, columns, rows) {
  const t = element("table");
  t.append(element("caption", {}, caption));
  const head = element("tr");
  for (const c of columns) head.append(element("th", { scope: "col" }, c));
  t.append(element("thead", {}, head));
  const body = element("tbody");
  for (const row of rows) {
    const tr = element("tr");
    row.forEach((cell, i) => tr.append(i === 0 ? element("th", { scope: "row" }, cell) : element("td", {}, cell)));
    body.append(tr);
  }
  t.append(body);
  // Exact fractions make wide tables: they scroll on their own, reachable from the keyboard.
  return element("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": caption }, t);
}

function isProbability(v) {
  return v && typeof v === "object" && !Array.isArray(v) && typeof v.fraction === "string";
}

function text(v) {
  if (isProbability(v)) return `${v.fraction} (${typeof v.percent === "number" ? v.percent.toFixed(2) : "?"}%)`;
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// Odds JSON: lists of outcomes become tables, plain fields a definition list.
function renderJson(title, value) {
  const box = element("div", { class: "odds-card" });
  const plain = element("dl");
  const visit = (label, v) => {
    if (Array.isArray(v) && v.length && v.every((row) => row && typeof row === "object" && !Array.isArray(row))) {
      const columns = [...new Set(v.flatMap((row) => Object.keys(row)))].filter((k) => k !== "percent");
      const ordered = [...columns.filter((c) => c === "outcome"), ...columns.filter((c) => c !== "outcome")];
      box.append(table(label, ordered.map((c) => (c === "fraction" ? "probability" : c)), v.map((row) => ordered.map((c) => (c === "fraction" ? text(row) : text(row[c]))))));
    } else if (v && typeof v === "object" && !Array.isArray(v) && !isProbability(v)) {
      for (const [k, inner] of Object.entries(v)) visit(label ? `${label}: ${k}` : k, inner);
    } else {
      plain.append(element("dt", {}, label), element("dd", {}, text(v)));
    }
  };
  visit("", value);
  if (plain.children.length) box.prepend(plain);
  box.prepend(element("h3", {}, title));
  return box;
}

// A reference table as its seed prints it: pipe tables become tables, other lines stay text.
function renderReference(name, summary, source) {
  const box = element("div", { class: "reference" });
  const blocks = source.split(/\n\s*\n/);
  let count = 0;
  for (const block of blocks) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    const isRule = (l) => /^\|?\s*:?-{2,}/.test(l.trim());
    const ruleAt = lines.findIndex(isRule);
    if (ruleAt >= 1 && lines.slice(ruleAt - 1).every((l) => l.includes("|"))) {
      for (const line of lines.slice(0, ruleAt - 1)) box.append(element("p", {}, line));
      const cells = (l) => {
        let t = l.trim();
        if (t.startsWith("|")) t = t.slice(1);
        if (t.endsWith("|")) t = t.slice(0, -1);
        return t.split("|").map((c) => c.trim());
      };
      count += 1;
      box.append(table(`${name} (${count}): ${summary}`, cells(lines[ruleAt - 1]), lines.slice(ruleAt + 1).map(cells)));
    } else if (lines.length) {
      box.append(element("pre", {}, lines.join("\n")));
    }
  }
  return box;
}

// ---- the page ----

function renderAbout() {
  $("description").textContent = `${game.description} (seed ${game.seed_file}; ${game.spec_items.length} spec items)`;
  $("mechanics").replaceChildren(...game.mechanics.flatMap((m) => [element("dt", {}, m.name), element("dd", {}, `${m.summary} (${m.spec_items.join(", ")})`)]));
}

// An analysis's answer as JSON of its own (a check's probability and dice, the luck ranges), when
// it has one: its tables give the gist, and some figures are only here. Folded under a summary
// (keyboard-operable as any `<details>`); the block is focusable so a long line can be scrolled
// without a mouse.
function jsonBlock(value) {
  return element("details", { class: "answer-json" },
    element("summary", {}, "JSON"),
    element("pre", { tabindex: "0" }, JSON.stringify(value, null, 2)));
}

function renderAnalyses() {
  const box = $("analyses");
  box.replaceChildren();
  $("analyses-section").hidden = game.analyses.length === 0;
  for (const analysis of game.analyses) {
    const key = `a.${analysis.name}`;
    const section = element("section", { class: "analysis", "aria-labelledby": `${key}-heading` });
    section.append(element("h3", { id: `${key}-heading` }, analysis.name), element("p", {}, analysis.summary));
    const form = element("form", { novalidate: "" });
    const output = element("div", { class: "analysis-output", "aria-live": "polite" });
    const defs = analysis.inputs.$defs ?? {};
    const run = async () => {
      const inputs = readObject(parts);
      writeFragment(key, inputs);
      output.setAttribute("aria-busy", "true");
      try {
        const { ok, json } = await request(key, "POST", `/api/v1/rules/${game.name}/analyses/${analysis.name}`, inputs);
        output.replaceChildren(...(ok
          ? [...warningList(json.warnings, `the ${analysis.name} inputs`), ...json.tables.map((t) => table(t.caption, t.columns, t.rows)),
            ...(json.notes ? [element("p", { class: "notes" }, json.notes)] : []),
            ...(json.json === undefined ? [] : [jsonBlock(json.json)])]
          : [problems(json)]));
      } catch (error) {
        if (error.name !== "AbortError") output.replaceChildren(element("p", {}, `The request failed: ${error.message}`));
      } finally {
        output.removeAttribute("aria-busy");
      }
    };
    const parts = objectFields(analysis.inputs, fragmentValue(key) ?? {}, defs, () => later(key, run), form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run();
    });
    section.append(form, output);
    box.append(section);
    run();
  }
}

function renderTables() {
  const box = $("tables");
  box.replaceChildren();
  $("tables-section").hidden = game.tables.length === 0;
  for (const t of game.tables) {
    const details = element("details", { class: "reference-table" });
    details.append(element("summary", {}, `${t.name}: ${t.summary}`));
    const body = element("div", { "aria-live": "polite" }, "");
    details.append(body);
    details.addEventListener("toggle", async () => {
      if (!details.open || body.dataset.loaded) return;
      body.textContent = "Computing…";
      const { ok, json } = await request(`t.${t.name}`, "GET", `/api/v1/rules/${game.name}/tables/${t.name}`);
      body.dataset.loaded = "1";
      body.replaceChildren(ok ? renderReference(t.name, t.summary, json.text) : problems(json));
    });
    box.append(details);
  }
}

function renderCharacter() {
  const section = $("character-section");
  const schemas = game.schemas;
  section.hidden = !schemas;
  $("sheet-form").replaceChildren();
  $("action-form").replaceChildren();
  $("sheet-problems").replaceChildren();
  $("odds").replaceChildren();
  if (!schemas) return;
  const sheetSchema = schemas.sheet;
  const sheetDefs = sheetSchema.$defs ?? {};
  const example = fragmentValue("sheet") ?? (sheetSchema.examples ?? [])[0] ?? {};
  const sheetField = field("Sheet", sheetSchema, example, sheetDefs, () => later("sheet", check));
  $("sheet-form").append(sheetField.node);

  const actionSchema = schemas.action;
  const actionDefs = actionSchema.$defs ?? {};
  const rolling = new Set(game.actions.filter((a) => a.rolls).map((a) => a.name));
  const variants = (actionSchema.oneOf ?? actionSchema.anyOf ?? []).map((v) => resolve(v, actionDefs));
  let action = null;
  if (variants.length && variants.every((v) => tagOf(v, actionDefs))) {
    const examples = actionSchema.examples ?? [];
    const first = fragmentValue("action") ?? examples.find((e) => rolling.has(e.action)) ?? {};
    action = union("Action", variants, first, actionDefs, () => later("odds", odds), (tag) => rolling.has(tag), examples);
    $("action-form").append(action.node);
  }

  async function check() {
    const sheet = sheetField.read();
    writeFragment("sheet", sheet);
    try {
      const { ok, json } = await request("sheet", "POST", `/api/v1/rules/${game.name}/sheets`, { sheet });
      if (ok) {
        $("sheet-problems").replaceChildren(element("p", { class: "valid" }, "✓ The sheet keeps every rule."), ...warningList(json.warnings, "the sheet"));
      } else {
        const count = (json.errors ?? []).length;
        $("sheet-problems").replaceChildren(element("p", { class: "invalid" }, `✗ ${count} problem${count === 1 ? "" : "s"} with the sheet:`), problems(json));
      }
    } catch (error) {
      if (error.name !== "AbortError") $("sheet-problems").textContent = `The request failed: ${error.message}`;
    }
    if (action) odds();
  }

  async function odds() {
    if (!action) return;
    const sheet = sheetField.read();
    const chosen = action.read();
    writeFragment("action", chosen);
    $("odds").setAttribute("aria-busy", "true");
    try {
      const { ok, json } = await request("odds", "POST", `/api/v1/rules/${game.name}/odds`, { sheet, action: chosen });
      $("odds").replaceChildren(ok ? renderJson(`Odds of ${chosen.action ?? "the action"}`, json) : problems(json));
    } catch (error) {
      if (error.name !== "AbortError") $("odds").textContent = `The request failed: ${error.message}`;
    } finally {
      $("odds").removeAttribute("aria-busy");
    }
  }
  // A finished sheet leaves the page as a file or on the clipboard: the JSON `omen campaign
  // character add --sheet @FILE` and the API take, without decoding the address.
  const sheetText = () => JSON.stringify(sheetField.read(), null, 2) + "\n";
  $("sheet-download").onclick = () => {
    const blob = new Blob([sheetText()], { type: "application/json" });
    const link = element("a", { href: URL.createObjectURL(blob), download: `${game.name}-sheet.json` });
    document.body.append(link);
    link.click();
    link.remove();
    $("sheet-saved").textContent = `Saved as ${game.name}-sheet.json.`;
  };
  $("sheet-copy").onclick = async () => {
    try {
      await navigator.clipboard.writeText(sheetText());
      $("sheet-saved").textContent = "Copied the sheet as JSON.";
    } catch {
      // No clipboard outside a secure context: the JSON is selected in a box to copy by hand.
      const box = element("textarea", { rows: "6", "aria-label": "the sheet as JSON", readonly: "" });
      box.value = sheetText();
      $("sheet-saved").replaceChildren("Copy it from here: ", box);
      box.select();
    }
  };
  $("sheet-form").addEventListener("submit", (e) => e.preventDefault());
  $("action-form").addEventListener("submit", (e) => e.preventDefault());
  check();
}

function show(name, keepInputs) {
  game = rules.find((r) => r.name === name) ?? rules[0];
  $("game").value = game.name;
  if (!keepInputs) history.replaceState(null, "", "#" + new URLSearchParams({ game: game.name }).toString());
  document.title = `Omen: ${game.name}`;
  renderAbout();
  renderAnalyses();
  renderCharacter();
  renderTables();
}

async function start() {
  $("status").textContent = "Loading the rule sets…";
  const { ok, json } = await request("rules", "GET", "/api/v1/rules");
  if (!ok) {
    $("status").replaceChildren(problems(json));
    return;
  }
  rules = json;
  $("status").textContent = "";
  for (const r of rules) $("game").append(element("option", { value: r.name }, `${r.seed_file.slice(0, 3)} ${r.name}`));
  $("game").addEventListener("change", () => show($("game").value, false));
  show(readFragment().get("game"), true);
  // A link to another game (or other inputs) pasted into this tab.
  window.addEventListener("hashchange", () => show(readFragment().get("game"), true));
}

start();
