// The seed games' page: everything on it comes from the rule sets as the server lists them
// (GET /api/v1/rules): the analyses and their input schemas, the reference tables, the sheet and
// action schemas. No game is named here; a new rule set gets its page without a change to this file.

const $ = (id) => document.getElementById(id);
let rules = [];
let game = null;
const timers = new Map();
const controllers = new Map();

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

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

// ---- forms from JSON Schemas ----
//
// A small reader of the schemas schemars writes: objects, whole numbers, true/false, labels with
// a fixed set of values, optional values, arrays of whole numbers, and tagged unions (the actions).
// Anything else is edited as JSON in a text box, so every schema still gets a form.

let fieldCount = 0;

function resolve(schema, defs) {
  let s = schema ?? {};
  for (let depth = 0; s.$ref && depth < 20; depth++) {
    s = defs[s.$ref.replace(/^#\/(\$defs|definitions)\//, "")] ?? {};
  }
  return s;
}

// `Option<T>`: the T, and whether null is allowed.
function unwrapOptional(schema, defs) {
  const s = resolve(schema, defs);
  const variants = s.anyOf ?? s.oneOf;
  if (variants && variants.length === 2 && variants.some((v) => v.type === "null")) {
    const inner = variants.find((v) => v.type !== "null");
    return { schema: { ...resolve(inner, defs), description: s.description ?? resolve(inner, defs).description }, nullable: true };
  }
  if (Array.isArray(s.type) && s.type.includes("null")) {
    return { schema: { ...s, type: s.type.find((t) => t !== "null") }, nullable: true };
  }
  return { schema: s, nullable: false };
}

function constants(schema, defs) {
  if (Array.isArray(schema.enum)) return schema.enum;
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants && variants.every((v) => "const" in resolve(v, defs) || (resolve(v, defs).enum ?? []).length === 1)) {
    return variants.map((v) => ("const" in resolve(v, defs) ? resolve(v, defs).const : resolve(v, defs).enum[0]));
  }
  return null;
}

// The tag of a tagged union's variant: the property whose schema is one constant.
function tagOf(variant, defs) {
  for (const [key, property] of Object.entries(variant.properties ?? {})) {
    const p = resolve(property, defs);
    if ("const" in p) return { key, value: p.const };
    if (Array.isArray(p.enum) && p.enum.length === 1) return { key, value: p.enum[0] };
  }
  return null;
}

function field(name, schema, value, defs, onChange, required = true) {
  const id = `field-${++fieldCount}`;
  const { schema: s, nullable } = unwrapOptional(schema, defs);
  const optional = nullable || !required;
  const described = s.description ? `${id}-help` : null;
  const help = described ? element("small", { id: described, class: "help" }, s.description) : null;
  const wrap = (input, ...after) => {
    if (described) input.setAttribute("aria-describedby", described);
    const row = element("div", { class: "field" }, element("label", { for: id }, name), input, ...after);
    if (help) row.append(help);
    return row;
  };
  const current = value ?? s.default;

  const choices = constants(s, defs);
  if (choices) {
    const select = element("select", { id });
    if (optional) select.append(element("option", { value: "" }, "(none)"));
    for (const c of choices) {
      const option = element("option", { value: JSON.stringify(c) }, String(c));
      if (JSON.stringify(c) === JSON.stringify(current)) option.selected = true;
      select.append(option);
    }
    select.addEventListener("change", onChange);
    return { node: wrap(select), read: () => (select.value === "" ? undefined : JSON.parse(select.value)) };
  }

  const variants = s.oneOf ?? s.anyOf;
  if (variants && variants.every((v) => tagOf(resolve(v, defs), defs))) return union(name, variants.map((v) => resolve(v, defs)), current, defs, onChange, () => true, s.examples ?? []);
  // `{"create": …}` or `{"sheet": …}`: serde's external tagging, one key per variant.
  if (variants && variants.every((v) => { const r = resolve(v, defs); return r.type === "object" && (r.required ?? []).length === 1 && Object.keys(r.properties ?? {}).length === 1; })) {
    return external(name, variants.map((v) => resolve(v, defs)), current, defs, onChange);
  }

  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "boolean" && nullable) {
    // An optional yes/no (`Option<bool>`): left unset, the rules decide (e.g. from the sheet).
    const select = element("select", { id });
    for (const [value, text] of [["", "(the rules decide)"], ["true", "yes"], ["false", "no"]]) {
      const option = element("option", { value }, text);
      if (value !== "" && String(current) === value) option.selected = true;
      select.append(option);
    }
    select.addEventListener("change", onChange);
    return { node: wrap(select), read: () => (select.value === "" ? undefined : select.value === "true") };
  }
  if (type === "boolean") {
    const box = element("input", { id, type: "checkbox" });
    box.checked = Boolean(current);
    box.addEventListener("change", onChange);
    return { node: wrap(box), read: () => box.checked };
  }
  if (type === "integer" || type === "number") {
    const input = element("input", { id, type: "number", step: type === "integer" ? "1" : "any" });
    if (s.minimum !== undefined) input.min = s.minimum;
    if (s.maximum !== undefined) input.max = s.maximum;
    input.value = current === undefined || current === null ? "" : String(current);
    input.addEventListener("input", onChange);
    return {
      node: wrap(input),
      read: () => (input.value.trim() === "" ? (optional ? undefined : 0) : Number(input.value)),
    };
  }
  if (type === "string") {
    const input = element("input", { id, type: "text", spellcheck: "false", autocomplete: "off" });
    input.value = current ?? "";
    input.addEventListener("input", onChange);
    return { node: wrap(input), read: () => (input.value === "" && optional ? undefined : input.value) };
  }
  if (type === "object" && s.properties) {
    const box = element("fieldset", { class: "object" }, element("legend", {}, name));
    if (help) box.append(help);
    if (optional) {
      // An optional group: a check box says whether it is there at all.
      const toggle = element("input", { id, type: "checkbox" });
      toggle.checked = current !== undefined && current !== null;
      box.append(element("div", { class: "field" }, element("label", { for: id }, `give ${name}`), toggle));
      const inner = element("div");
      box.append(inner);
      const parts = objectFields(s, current ?? {}, defs, onChange, inner);
      inner.hidden = !toggle.checked;
      toggle.addEventListener("change", () => {
        inner.hidden = !toggle.checked;
        onChange();
      });
      return { node: box, read: () => (toggle.checked ? readObject(parts) : undefined) };
    }
    const parts = objectFields(s, current ?? {}, defs, onChange, box);
    return { node: box, read: () => readObject(parts) };
  }
  if (type === "array" && ["integer", "number"].includes(resolve(s.items, defs).type)) {
    const input = element("input", { id, type: "text", inputmode: "numeric", spellcheck: "false" });
    input.value = (current ?? []).join(", ");
    input.addEventListener("input", onChange);
    return {
      node: wrap(input, element("span", { class: "note" }, " numbers, separated by commas")),
      read: () => input.value.split(",").map((t) => t.trim()).filter(Boolean).map(Number),
    };
  }
  if (type === "array" && resolve(s.items, defs).type === "string" && !constants(resolve(s.items, defs), defs)) {
    const area = element("textarea", { id, rows: String(Math.max(2, (current ?? []).length)), spellcheck: "false" });
    area.value = (current ?? []).join("\n");
    area.addEventListener("input", onChange);
    return {
      node: wrap(area, element("span", { class: "note" }, " one per line")),
      read: () => area.value.split("\n").map((t) => t.trim()).filter(Boolean),
    };
  }
  // A map from names to numbers (dots per aspect): one number box per name, empty for none.
  if (type === "object" && !s.properties && ["integer", "number"].includes(resolve(s.additionalProperties, defs).type)) {
    const known = constants(resolve(s.propertyNames ?? {}, defs), defs) ?? [];
    const names = [...new Set([...known, ...Object.keys(current ?? {})])];
    if (names.length) {
      const box = element("fieldset", { class: "object map" }, element("legend", {}, name));
      if (help) box.append(help);
      const inputs = names.map((key) => {
        const inputId = `field-${++fieldCount}`;
        const input = element("input", { id: inputId, type: "number", step: "1" });
        input.value = current && current[key] !== undefined ? String(current[key]) : "";
        input.addEventListener("input", onChange);
        box.append(element("div", { class: "field" }, element("label", { for: inputId }, key), input));
        return [key, input];
      });
      return {
        node: box,
        read: () => Object.fromEntries(inputs.filter(([, i]) => i.value.trim() !== "").map(([k, i]) => [k, Number(i.value)])),
      };
    }
  }
  // Anything else: JSON in a text box.
  const area = element("textarea", { id, rows: "3", spellcheck: "false", class: "json" });
  area.value = JSON.stringify(current ?? (type === "array" ? [] : type === "object" ? {} : null));
  area.addEventListener("input", onChange);
  return {
    node: wrap(area, element("span", { class: "note" }, " JSON")),
    read: () => {
      try {
        return JSON.parse(area.value);
      } catch {
        return area.value;
      }
    },
  };
}

function objectFields(schema, value, defs, onChange, into) {
  const required = new Set(schema.required ?? []);
  const parts = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const p = resolve(property, defs);
    if ("const" in p) {
      parts.push({ key, read: () => p.const });
      continue;
    }
    const built = field(key, property, value[key], defs, onChange, required.has(key) || p.default !== undefined);
    into.append(built.node);
    parts.push({ key, read: built.read });
  }
  return parts;
}

function readObject(parts) {
  const out = {};
  for (const { key, read } of parts) {
    const v = read();
    if (v !== undefined) out[key] = v;
  }
  return out;
}

// A tagged union (an action): a menu of its variants, then the chosen variant's fields.
function union(name, variants, value, defs, onChange, filter = () => true, examples = []) {
  const id = `field-${++fieldCount}`;
  const shown = variants.filter((v) => filter(tagOf(v, defs).value));
  const box = element("fieldset", { class: "object" }, element("legend", {}, name));
  const select = element("select", { id });
  for (const v of shown) select.append(element("option", { value: JSON.stringify(tagOf(v, defs).value) }, String(tagOf(v, defs).value)));
  box.append(element("div", { class: "field" }, element("label", { for: id }, "kind"), select));
  const inner = element("div");
  box.append(inner);
  let parts = [];
  const build = (initial) => {
    const variant = shown.find((v) => JSON.stringify(tagOf(v, defs).value) === select.value) ?? shown[0];
    inner.replaceChildren();
    if (variant?.description) inner.append(element("p", { class: "help" }, variant.description));
    parts = variant ? objectFields(variant, initial ?? {}, defs, onChange, inner) : [];
  };
  const tag = shown.length ? tagOf(shown[0], defs).key : null;
  if (value && tag && value[tag] !== undefined) select.value = JSON.stringify(value[tag]);
  build(value);
  select.addEventListener("change", () => {
    // A variant starts from the schema's example of it, when there is one.
    build(tag ? examples.find((e) => JSON.stringify(e[tag]) === select.value) ?? {} : {});
    onChange();
  });
  return { node: box, read: () => readObject(parts) };
}

// serde's external tagging: a menu of the keys, then the chosen key's value.
function external(name, variants, value, defs, onChange) {
  const id = `field-${++fieldCount}`;
  const keyOf = (v) => Object.keys(v.properties)[0];
  const box = element("fieldset", { class: "object" }, element("legend", {}, name));
  const select = element("select", { id });
  for (const v of variants) select.append(element("option", { value: keyOf(v) }, keyOf(v)));
  box.append(element("div", { class: "field" }, element("label", { for: id }, "kind"), select));
  const inner = element("div");
  box.append(inner);
  let built = null;
  const build = (initial) => {
    const variant = variants.find((v) => keyOf(v) === select.value) ?? variants[0];
    inner.replaceChildren();
    if (variant.description) inner.append(element("p", { class: "help" }, variant.description));
    built = field(keyOf(variant), variant.properties[keyOf(variant)], initial, defs, onChange);
    inner.append(built.node);
  };
  const given = value && variants.find((v) => keyOf(v) in value);
  if (given) select.value = keyOf(given);
  build(given ? value[keyOf(given)] : undefined);
  select.addEventListener("change", () => {
    build(undefined);
    onChange();
  });
  return { node: box, read: () => ({ [select.value]: built.read() }) };
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
        output.replaceChildren(...(ok ? json.tables.map((t) => table(t.caption, t.columns, t.rows)) : [problems(json)]));
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
        $("sheet-problems").replaceChildren(element("p", { class: "valid" }, "✓ The sheet keeps every rule."));
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
