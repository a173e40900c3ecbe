// The calculator: expressions in, the exact odds out as a table first, then statistics and a chart.
// Everything the page shows is in the address's fragment (never sent to the server), so a link
// restores it on any Omen server.

const VIEWS = { eq: "=", ge: "≥", le: "≤", gt: ">", lt: "<" };
// Okabe and Ito's palette: told apart with every common colour-vision deficiency.
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
const SVG = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);
let controller = null;
let last = null; // { settings, results }: what the table shows, for the exports
let restoredParams = {}; // parameter values from the address, until the form holds them
let debounce = null;

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

function svgElement(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

// ---- the form and the fragment ----

function addExpression(text = "") {
  const row = $("expression-row").content.firstElementChild.cloneNode(true);
  const list = $("expression-list");
  list.append(row);
  const input = row.querySelector(".expression-input");
  input.value = text;
  const fit = () => (input.rows = Math.min(12, Math.max(1, input.value.split("\n").length)));
  fit();
  input.addEventListener("input", fit);
  // Enter calculates a plain expression; in a script (it has `;`) or an AnyDice program (a program
  // of lines) it starts a new line.
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    const lines = input.value.includes(";") || $("dialect").value === "anydice";
    if (event.ctrlKey || event.metaKey || !lines) {
      event.preventDefault();
      $("calculator").requestSubmit();
    }
  });
  row.querySelector(".remove").addEventListener("click", () => {
    if (list.children.length > 1) {
      row.remove();
      numberRows();
    }
  });
  row.querySelector(".roll").addEventListener("click", () => roll(row));
  numberRows();
  offerRolls();
  return row;
}

// The server rolls dice expressions, and refuses AnyDice programs at /roll: with that dialect the
// Roll buttons are hidden and a note says why and what rolls a program instead.
function offerRolls() {
  const anydice = $("dialect").value === "anydice";
  for (const button of document.querySelectorAll(".expression .roll")) button.hidden = anydice;
  $("roll-note").hidden = !anydice;
}

function numberRows() {
  [...$("expression-list").children].forEach((row, index) => {
    const id = `expression-${index + 1}`;
    const input = row.querySelector(".expression-input");
    input.id = id;
    input.setAttribute("aria-describedby", `${id}-error expression-help`);
    row.querySelector(".error").id = `${id}-error`;
    const label = row.querySelector(".expression-label");
    label.htmlFor = id;
    label.textContent = `Expression ${index + 1}`;
    row.querySelector(".roll").setAttribute("aria-label", `Roll expression ${index + 1}`);
    row.querySelector(".remove").setAttribute("aria-label", `Remove expression ${index + 1}`);
  });
}

function settings() {
  return {
    expressions: [...document.querySelectorAll(".expression-input")].map((i) => i.value),
    dialect: $("dialect").value,
    view: document.querySelector('input[name="view"]:checked').value,
    transpose: $("transpose").checked,
    params: paramValues(),
  };
}

function fragment(s) {
  const params = new URLSearchParams();
  for (const e of s.expressions) params.append("e", e);
  if (s.dialect !== "omen") params.set("dialect", s.dialect);
  if (s.view !== "eq") params.set("view", s.view);
  if (s.transpose) params.set("transpose", "1");
  for (const [name, value] of Object.entries(s.params)) params.set(`p.${name}`, JSON.stringify(value));
  return "#" + params.toString();
}

function restore() {
  const params = new URLSearchParams(location.hash.slice(1));
  const expressions = params.getAll("e");
  $("expression-list").replaceChildren();
  for (const e of expressions.length ? expressions : ["2d6"]) addExpression(e);
  const dialect = params.get("dialect");
  if (dialect && [...$("dialect").options].some((o) => o.value === dialect)) $("dialect").value = dialect;
  const view = params.get("view") in VIEWS ? params.get("view") : "eq";
  document.querySelector(`input[name="view"][value="${view}"]`).checked = true;
  $("transpose").checked = params.get("transpose") === "1";
  restoredParams = {};
  for (const [key, value] of params) {
    if (!key.startsWith("p.")) continue;
    try {
      restoredParams[key.slice(2)] = JSON.parse(value);
    } catch {
      restoredParams[key.slice(2)] = value;
    }
  }
  $("param-list").replaceChildren();
  $("params").hidden = true;
  offerRolls();
  return expressions.length > 0;
}

// ---- numbers: exact fractions to decimals without floating-point loss ----

function parseFraction(text) {
  const [n, d = "1"] = String(text).split("/");
  return { n: BigInt(n), d: BigInt(d) };
}

function decimal(text, places = 4) {
  const { n, d } = parseFraction(text);
  const negative = n < 0n;
  const scale = 10n ** BigInt(places);
  const scaled = ((negative ? -n : n) * scale * 2n + d) / (2n * d); // rounded half up
  const whole = scaled / scale;
  const part = (scaled % scale).toString().padStart(places, "0");
  return `${negative && scaled !== 0n ? "-" : ""}${whole}.${part}`;
}

function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

// a - b for two fractions as text, exact and in lowest terms.
function subtract(a, b) {
  const x = parseFraction(a), y = parseFraction(b);
  const n = x.n * y.d - y.n * x.d, d = x.d * y.d;
  const g = gcd(n, d) || 1n;
  return d / g === 1n ? `${n / g}` : `${n / g}/${d / g}`;
}

// The probability a row gives for the chosen comparison: the API sends P(=), P(≥) and P(≤) of
// each outcome (as `omen prob --format json` does); P(>) and P(<) are those less P(=). Labels have
// no order, so the API sends no P(≥) or P(≤) for them, and only P(=) is shown.
function chosen(row, view) {
  if (view !== "eq" && row.at_least == null) return null;
  switch (view) {
    case "ge": return row.at_least;
    case "le": return row.at_most;
    case "gt": return subtract(row.at_least, row.probability);
    case "lt": return subtract(row.at_most, row.probability);
    default: return row.probability;
  }
}

function percent(text) {
  const { n, d } = parseFraction(text);
  return decimal(`${n * 100n}/${d}`, 2) + "%";
}

function outcomeText(value) {
  if (Array.isArray(value)) return "(" + value.map(outcomeText).join(", ") + ")";
  return String(value);
}

// ---- the table ----

// The outcomes of every result, in order: numbers ascending, others in the order they came.
function outcomes(results) {
  const seen = new Map();
  for (const result of results) {
    for (const row of result.outcomes) seen.set(JSON.stringify(row.outcome), row.outcome);
  }
  const all = [...seen.values()];
  if (all.every((v) => typeof v === "number")) all.sort((a, b) => a - b);
  return all;
}

function cell(result, outcome) {
  const key = JSON.stringify(outcome);
  return result.outcomes.find((row) => JSON.stringify(row.outcome) === key);
}

// A short name for a result: a script by its last expression and the values its parameters took.
function label(result, index) {
  // An AnyDice output is named by the program (`output K`, or its `named` text).
  if (result.output) return result.output;
  const source = result.expression ?? "";
  let name = source.trim();
  if (name.includes(";") || name.includes("\n")) {
    const tail = name.slice(name.lastIndexOf(";") + 1).split("\n").map((l) => l.replace(/(#|\/\/).*$/, "").trim()).filter(Boolean).join(" ");
    name = tail || `script ${index + 1}`;
  }
  if (!name) name = `expression ${index + 1}`;
  const params = result.params ?? [];
  if (params.length) name += ` (${params.map((p) => `${p.name} = ${outcomeText(p.value)}`).join(", ")})`;
  return name;
}

// The table as rows of plain text: the one source of the page's table and of every export.
function grid(s, results) {
  const values = outcomes(results);
  const sign = VIEWS[s.view];
  const name = (r, i) => label(r, i);
  if (!s.transpose) {
    const head = ["outcome"];
    results.forEach((r, i) => head.push(`P(${sign}) ${name(r, i)}`, "%"));
    const body = values.map((v) => {
      const line = [outcomeText(v)];
      for (const r of results) {
        const found = cell(r, v) && chosen(cell(r, v), s.view);
        line.push(found ?? "", found ? percent(found) : "");
      }
      return line;
    });
    return { head, body, rowHeader: true };
  }
  const head = ["expression", ...values.map((v) => `${sign} ${outcomeText(v)}`)];
  const body = results.map((r, i) => [
    name(r, i),
    ...values.map((v) => {
      const found = cell(r, v) && chosen(cell(r, v), s.view);
      return found ? `${found} (${percent(found)})` : "";
    }),
  ]);
  return { head, body, rowHeader: true };
}

function renderTable(s, results) {
  const { head, body } = grid(s, results);
  const table = element("table", { id: "odds" });
  const unordered = s.view !== "eq" && results.some((r) => r.outcomes.some((row) => row.at_least == null));
  const caption = `Exact probabilities (${VIEWS[s.view]}) of ${results.length} expression${results.length === 1 ? "" : "s"}`;
  table.append(element("caption", {}, unordered ? `${caption}; labels have no order, so choose = for their probabilities` : caption));
  const headRow = element("tr");
  for (const h of head) headRow.append(element("th", { scope: "col" }, h));
  table.append(element("thead", {}, headRow));
  const tbody = element("tbody");
  for (const line of body) {
    const tr = element("tr");
    line.forEach((text, i) => {
      tr.append(i === 0 ? element("th", { scope: "row" }, text) : element("td", {}, text));
    });
    tbody.append(tr);
  }
  table.append(tbody);
  $("table-area").replaceChildren(table);
}

function renderStats(results) {
  // Labels and tuples have no mean: the API sends null (not a fraction) for them.
  const numeric = results.filter((r) => r.mean != null);
  if (!numeric.length) {
    $("stats-area").replaceChildren();
    return;
  }
  const table = element("table", { id: "statistics" });
  table.append(element("caption", {}, "Exact mean, variance and standard deviation"));
  const head = element("tr");
  for (const h of ["expression", "mean", "variance", "standard deviation"]) head.append(element("th", { scope: "col" }, h));
  table.append(element("thead", {}, head));
  const tbody = element("tbody");
  for (const r of numeric) {
    const tr = element("tr");
    tr.append(element("th", { scope: "row" }, label(r, results.indexOf(r))));
    tr.append(element("td", {}, `${r.mean} ≈ ${decimal(r.mean)}`));
    tr.append(element("td", {}, `${r.variance} ≈ ${decimal(r.variance)}`));
    tr.append(element("td", {}, `√(${r.variance}) ≈ ${Number(r.standard_deviation).toFixed(4)}`));
    tbody.append(tr);
  }
  table.append(tbody);
  $("stats-area").replaceChildren(table);
}

// ---- the chart: grouped bars, an SVG a screen reader can read (each bar has a title) ----

function renderChart(s, results) {
  const values = outcomes(results);
  const width = 720, height = 280, left = 48, bottom = 36, top = 12;
  const plotWidth = width - left - 12, plotHeight = height - top - bottom;
  const fraction = (r, v) => {
    const found = cell(r, v) && chosen(cell(r, v), s.view);
    if (!found) return 0;
    const { n, d } = parseFraction(found);
    return Number((n * 1000000n) / d) / 1000000;
  };
  const highest = Math.max(1e-9, ...results.flatMap((r) => values.map((v) => fraction(r, v))));
  const svg = svgElement("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-labelledby": "chart-title",
    class: "chart",
  });
  const title = svgElement("title", { id: "chart-title" });
  title.textContent = `Bar chart of the probabilities (${VIEWS[s.view]}); the table above holds the same figures`;
  svg.append(title);
  svg.append(svgElement("line", { x1: left, y1: top + plotHeight, x2: width - 12, y2: top + plotHeight, class: "axis" }));
  for (const tick of [0, 0.5, 1]) {
    const y = top + plotHeight - tick * plotHeight;
    const label = svgElement("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "tick" });
    label.textContent = `${(tick * highest * 100).toFixed(1)}%`;
    svg.append(label);
  }
  const band = plotWidth / Math.max(1, values.length);
  const bar = (band * 0.8) / results.length;
  values.forEach((v, i) => {
    results.forEach((r, j) => {
      const p = fraction(r, v);
      const h = (p / highest) * plotHeight;
      const rect = svgElement("rect", {
        x: left + i * band + band * 0.1 + j * bar,
        y: top + plotHeight - h,
        width: Math.max(1, bar - 1),
        height: h,
        fill: PALETTE[j % PALETTE.length],
      });
      const tip = svgElement("title");
      const found = cell(r, v);
      tip.textContent = `${label(r, j)}: ${VIEWS[s.view]} ${outcomeText(v)}: ${found ? chosen(found, s.view) ?? "labels have no order" : "0"}`;
      rect.append(tip);
      svg.append(rect);
    });
    if (values.length <= 40 || i % Math.ceil(values.length / 40) === 0) {
      const label = svgElement("text", { x: left + i * band + band / 2, y: height - bottom + 16, "text-anchor": "middle", class: "tick" });
      label.textContent = outcomeText(v);
      svg.append(label);
    }
  });
  const legend = element("ul", { class: "legend" });
  results.forEach((r, j) => {
    const swatch = svgElement("svg", { width: 14, height: 14, "aria-hidden": "true" });
    swatch.append(svgElement("rect", { width: 14, height: 14, fill: PALETTE[j % PALETTE.length] }));
    legend.append(element("li", {}, swatch, ` ${label(r, j)}`));
  });
  $("chart-area").replaceChildren(svg, legend);
}

// ---- errors: the caret, the message and the hint, under the input they are about ----

function clearErrors() {
  for (const row of $("expression-list").children) {
    row.querySelector(".error").replaceChildren();
    row.querySelector(".expression-input").removeAttribute("aria-invalid");
  }
}

// The server counts byte offsets in UTF-8; the page counts UTF-16 units.
function characters(text, byteOffset) {
  const bytes = new TextEncoder().encode(text);
  return new TextDecoder().decode(bytes.slice(0, byteOffset)).length;
}

function showErrors(problems, rows) {
  for (const problem of problems) {
    const row = rows[problem.expression ?? 0] ?? rows[0];
    const input = row.querySelector(".expression-input");
    const box = row.querySelector(".error");
    input.setAttribute("aria-invalid", "true");
    if (problem.span) {
      // The line the span starts on, with the caret under it (the CLI's drawing).
      const start = characters(input.value, problem.span.start);
      const end = Math.max(start + 1, characters(input.value, problem.span.end));
      const lineStart = start === 0 ? 0 : input.value.lastIndexOf("\n", start - 1) + 1;
      const lineEnd = input.value.indexOf("\n", start) === -1 ? input.value.length : input.value.indexOf("\n", start);
      const line = input.value.slice(lineStart, lineEnd);
      const width = Math.max(1, Math.min(end, lineEnd) - start);
      const caret = " ".repeat(start - lineStart) + "^".repeat(width);
      box.append(element("pre", { class: "caret", "aria-hidden": "true" }, `${line}\n${caret}`));
    }
    box.append(element("p", { class: "message" }, `error: ${problem.message}`));
    if (problem.help) box.append(element("p", { class: "help" }, `help: ${problem.help}`));
  }
}

// ---- designer calculators: a script's `param` declarations as form inputs ----
//
// The server says which parameters each script declares and the values they took (its own
// reading). A comment on the declaration's line may shape the input: `param dv = 8; # 2..=12` is a
// slider from 2 to 12, `param school = "fire"; # "fire" | "ice"` a menu of those values.

const NAME = "[A-Za-z_][A-Za-z0-9_]*";

// The names a script declares, read from its text to split the form's values between the
// expressions; the server checks them (an unknown or missing one is an error with a hint).
function declaredNames(source) {
  return [...source.matchAll(new RegExp(`(?:^|[;\\s])param\\s+(${NAME})`, "g"))].map((m) => m[1]);
}

function paramsFor(source, values) {
  const own = {};
  for (const name of declaredNames(source)) if (name in values) own[name] = values[name];
  return own;
}

// The shape a comment gives: { range: [low, high] } or { choices: [values] }, else null.
function annotation(sources, name) {
  for (const source of sources) {
    for (const line of source.split("\n")) {
      const found = new RegExp(`\\bparam\\s+${name}\\b[^;]*;\\s*(?:#|//)\\s*(.*)$`).exec(line);
      if (!found) continue;
      const text = found[1].trim();
      const range = /^(-?\d+)\s*\.\.(=?)\s*(-?\d+)/.exec(text);
      if (range) {
        const low = Number(range[1]);
        const high = Number(range[3]) - (range[2] ? 0 : 1);
        if (low <= high) return { range: [low, high] };
      }
      if (text.includes("|")) {
        const choices = text.split("|").map((c) => c.trim()).filter(Boolean).map((c) => {
          if (/^-?\d+$/.test(c)) return Number(c);
          if (c === "true" || c === "false") return c === "true";
          return c.replace(/^"(.*)"$/, "$1");
        });
        if (choices.length > 1) return { choices };
      }
    }
  }
  return null;
}

function paramValues() {
  const values = { ...restoredParams };
  for (const input of document.querySelectorAll("[data-param]")) {
    const name = input.dataset.param;
    const kind = input.dataset.kind;
    if (kind === "bool") values[name] = input.checked;
    else if (kind === "int") values[name] = Number.parseInt(input.value, 10) || 0;
    else if (kind === "choice") values[name] = JSON.parse(input.value);
    else if (kind === "tuple") {
      try {
        values[name] = JSON.parse(input.value);
      } catch {
        values[name] = input.value;
      }
    } else values[name] = input.value;
  }
  return values;
}

function changed() {
  clearTimeout(debounce);
  debounce = setTimeout(calculate, 300);
}

function paramInput(name, value, shape, index) {
  const id = `param-${index}`;
  const row = element("div", { class: "param" });
  const label = element("label", { for: id }, name);
  let input;
  if (shape && shape.choices) {
    input = element("select", { id, "data-param": name, "data-kind": "choice" });
    for (const choice of shape.choices) {
      const option = element("option", { value: JSON.stringify(choice) }, String(choice));
      if (JSON.stringify(choice) === JSON.stringify(value)) option.selected = true;
      input.append(option);
    }
  } else if (typeof value === "boolean") {
    input = element("input", { id, type: "checkbox", "data-param": name, "data-kind": "bool" });
    input.checked = value;
  } else if (typeof value === "number" && shape && shape.range) {
    const [low, high] = shape.range;
    input = element("input", { id, type: "range", min: low, max: high, step: 1, "data-param": name, "data-kind": "int" });
    input.value = String(value);
    const shown = element("output", { for: id, class: "param-value" }, String(value));
    input.addEventListener("input", () => (shown.textContent = input.value));
    row.append(label, input, shown);
    input.addEventListener("input", changed);
    return row;
  } else if (typeof value === "number") {
    input = element("input", { id, type: "number", step: 1, "data-param": name, "data-kind": "int" });
    input.value = String(value);
  } else if (Array.isArray(value)) {
    input = element("input", { id, type: "text", "data-param": name, "data-kind": "tuple", spellcheck: "false" });
    input.value = JSON.stringify(value);
  } else {
    input = element("input", { id, type: "text", "data-param": name, "data-kind": "text", spellcheck: "false" });
    input.value = String(value);
  }
  input.addEventListener(input.type === "checkbox" || input.tagName === "SELECT" ? "change" : "input", changed);
  row.append(label, input);
  return row;
}

// Rebuilds the form when the set of parameters changes; leaves it alone (focus, caret and all)
// while the user only changes values.
function renderParams(sources, results) {
  const declared = new Map();
  for (const result of results) for (const p of result.params ?? []) if (!declared.has(p.name)) declared.set(p.name, p.value);
  const list = $("param-list");
  const names = [...declared.keys()];
  const shown = [...list.querySelectorAll("[data-param]")].map((i) => i.dataset.param);
  const shapes = names.map((n) => JSON.stringify(annotation(sources, n)));
  if (JSON.stringify(names) === JSON.stringify(shown) && list.dataset.shapes === JSON.stringify(shapes)) return;
  list.replaceChildren(...names.map((name, i) => paramInput(name, declared.get(name), annotation(sources, name), i + 1)));
  list.dataset.shapes = JSON.stringify(shapes);
  restoredParams = {};
  $("params").hidden = names.length === 0;
}

// ---- requests ----

function busy(on) {
  $("cancel").hidden = !on;
  $("calculate").disabled = on;
  $("results").setAttribute("aria-busy", on ? "true" : "false");
}

async function post(path, body) {
  if (controller) controller.abort();
  controller = new AbortController();
  const signal = controller.signal;
  busy(true);
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = { errors: [{ message: `the server answered ${response.status}` }] };
    }
    return { ok: response.ok, json, text };
  } finally {
    if (controller && controller.signal === signal) {
      controller = null;
      busy(false);
    }
  }
}

function clearResults() {
  last = null;
  for (const id of ["table-area", "stats-area", "chart-area"]) $(id).replaceChildren();
  $("export").hidden = true;
}

async function calculate() {
  const s = settings();
  history.replaceState(null, "", fragment(s));
  $("permalink").href = location.href;
  clearErrors();
  const rows = [...$("expression-list").children];
  $("status").textContent = "Calculating…";
  try {
    const anydice = s.dialect === "anydice";
    const { ok, json } = await post("/api/v1/prob", {
      expressions: s.expressions,
      dialect: s.dialect,
      // AnyDice programs set their variables themselves: they take no parameters.
      expression_params: anydice ? [] : s.expressions.map((e) => paramsFor(e, s.params)),
    });
    if (!ok) {
      // The answer before this one is not this input's: it goes, so nothing under the error
      // reads as its result.
      clearResults();
      showErrors(json.errors ?? [], rows);
      $("status").textContent = `Error: ${(json.errors ?? []).map((e) => e.message).join("; ")}`;
      return;
    }
    // Each output of an AnyDice program is one result, its name in `reading`.
    if (anydice) json.results = json.results.map((r) => ({ ...r, output: r.reading }));
    last = { settings: s, results: json.results };
    renderParams(s.expressions, json.results);
    renderTable(s, json.results);
    renderStats(json.results);
    renderChart(s, json.results);
    $("export").hidden = false;
    const warnings = json.results.flatMap((r) => r.warnings.map((w) => `warning in ${r.expression}: ${w.message}`));
    $("status").textContent = [`Calculated ${json.results.length} expression${json.results.length === 1 ? "" : "s"}.`, ...warnings].join(" ");
  } catch (error) {
    if (error.name !== "AbortError") clearResults();
    $("status").textContent = error.name === "AbortError" ? "Cancelled." : `The request failed: ${error.message}`;
  }
}

// ---- rolls: the roller's own tree, every term with its dice and its subtotal ----
//
// The server answers a roll with the tree the roller kept (the one `omen roll` prints as its
// transcript): every node with its span in the input and its value. The page only lays it out: a
// term's text, the values of its operands put into its operator, and its value; nothing is
// recomputed here.

const MARKS = { kept: "", dropped: "dropped", exploded: "exploded", rerolled: "rerolled", "depth-limit": "depth limit", clamped: "clamped", success: "success", failure: "failure", "critical-success": "critical success", "critical-failure": "critical failure" };

const isNode = (value) => value !== null && typeof value === "object" && "node" in value && "span" in value;

// The parts of a node that get lines of their own, each with a word saying what it is to its parent.
function parts(node) {
  switch (node.node) {
    case "let":
      return [[node.bound, `let ${node.name}`], [node.body, ""]];
    case "if":
      return [[node.condition, "if"], [node.branch, "then"]];
    case "match":
      return [[node.scrutinee, "match"], [node.body, `arm ${node.arm + 1}`]];
    case "process":
      return [[node.start, "start"], ...node.steps.map((step, i) => [step, `step ${i + 1}`])];
    case "apply":
      return [...node.args.map((arg) => [arg, "argument"]), [node.body, `${node.function}`]];
    case "group":
      return node.members.map((member, i) => [member, node.kept[i] ? "" : "dropped"]);
    default: {
      const found = [];
      for (const [key, value] of Object.entries(node)) {
        if (key === "span") continue;
        if (Array.isArray(value)) found.push(...value.filter(isNode).map((child) => [child, ""]));
        else if (isNode(value)) found.push([value, ""]);
      }
      return found;
    }
  }
}

// A bare number or name says nothing its parent's line does not.
const quiet = (node) => node.node === "constant" || node.node === "var";

function operandText(node) {
  const text = outcomeText(node.value);
  return typeof node.value === "number" && node.value < 0 ? `(${text})` : text;
}

// The operator with its operands' values put in: `7 + 3`, the arithmetic of the transcript.
function arithmeticText(node) {
  if (node.node === "binary") return `${operandText(node.left)} ${node.op} ${operandText(node.right)}`;
  if (node.node === "unary") return `${node.op}${/^[a-z]+$/.test(node.op) ? " " : ""}${operandText(node.operand)}`;
  if (node.node === "call") return `${node.function}(${node.args.map(operandText).join(", ")})`;
  if (node.node === "apply") return `${node.function}(${node.args.map(operandText).join(", ")})`;
  return null;
}

function writtenText(node, source) {
  const text = source.slice(characters(source, node.span.start), characters(source, node.span.end)).replace(/\s+/g, " ").trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function diceList(node) {
  const list = element("ul", { class: "dice", "aria-label": `dice of ${node.notation}` });
  for (const die of node.dice) {
    const marks = die.marks.filter((m) => MARKS[m]);
    const text = die.rolls && die.rolls.length > 1 ? `${die.value} (${die.rolls.join(", ")})` : String(die.value);
    const item = element("li", { class: ["die", ...die.marks].join(" ") }, text);
    // The marks as words too, not as colour or strike-through alone.
    if (marks.length) item.append(element("span", { class: "marks" }, ` ${marks.map((m) => MARKS[m]).join(", ")}`));
    list.append(item);
  }
  return list;
}

// One term of the tree: what it is to its parent, the text it was written as, the arithmetic with
// its operands' values, its subtotal, its dice, then its own terms nested under it.
function treeItem(node, source, role, depth) {
  const term = node.node === "dice" ? node.notation : writtenText(node, source);
  // A pool is a group whose value is the tuple of its readings' workings, not a result: its line
  // shows its dice (its dice terms' own lines, or for a pool made from another the faces it holds),
  // and each reading has its own line.
  const pool = node.node === "group" && Array.isArray(node.value);
  const faces = pool && node.members.some((m) => quiet(m)) ? `{${node.members.map((m) => outcomeText(m.value)).join(", ")}}` : "";
  const value = pool ? faces : outcomeText(node.value);
  const item = element("li", { class: "term", "data-term": term, "data-value": value, "data-node": node.node });
  if (role) item.dataset.role = role;
  const line = element("span", { class: "term-line" });
  if (role) line.append(element("span", { class: "term-role" }, `${role}: `));
  line.append(element("code", {}, term));
  const arithmetic = arithmeticText(node);
  if (!pool) {
    line.append(arithmetic && arithmetic !== value ? ` → ${arithmetic} = ` : " = ");
    line.append(element("strong", { class: "subtotal" }, value));
  } else if (faces) {
    line.append(" → ", element("strong", { class: "subtotal" }, faces));
  }
  item.append(line);
  if (node.node === "dice") item.append(diceList(node));
  const nested = depth < 64 ? parts(node).filter(([child]) => !quiet(child)) : [];
  if (nested.length) {
    const list = element("ul", { class: "roll-tree" });
    for (const [child, childRole] of nested) list.append(treeItem(child, source, childRole, depth + 1));
    item.append(list);
  }
  return item;
}

function rollTree(tree, source) {
  return element("ul", { class: "roll-tree", "aria-label": "how the roll adds up: every term with its dice and subtotal" }, treeItem(tree, source, "", 0));
}

async function roll(row) {
  clearErrors();
  const input = row.querySelector(".expression-input");
  try {
    const { ok, json, text } = await post("/api/v1/roll", { expression: input.value, dialect: $("dialect").value });
    if (!ok) {
      showErrors((json.errors ?? []).map((e) => ({ ...e, expression: 0 })), [row]);
      return;
    }
    const card = element("article", { class: "roll-card" });
    card.append(element("h3", {}, `${json.expression} → ${outcomeText(json.result)}`));
    card.append(rollTree(json.tree, json.expression));
    // A seed is a 64-bit integer, past what a JavaScript number holds exactly: read its digits.
    const seed = /"seed":\s*(\d+)/.exec(text)?.[1] ?? "—";
    card.append(element("p", { class: "seed" }, `seed ${seed}; read as ${json.reading}`));
    $("rolls").prepend(card);
  } catch (error) {
    if (error.name !== "AbortError") $("status").textContent = `The roll failed: ${error.message}`;
  }
}

// ---- exports ----

function exportText(kind) {
  const { head, body } = grid(last.settings, last.results);
  if (kind === "csv") {
    const quote = (t) => (/[",\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t);
    return { text: [head, ...body].map((l) => l.map(quote).join(",")).join("\n") + "\n", type: "text/csv" };
  }
  if (kind === "md") {
    const line = (l) => "| " + l.map((t) => t.replaceAll("|", "\\|")).join(" | ") + " |";
    return { text: [line(head), line(head.map(() => "---")), ...body.map(line)].join("\n") + "\n", type: "text/markdown" };
  }
  return { text: JSON.stringify({ ...last.settings, results: last.results }, null, 2) + "\n", type: "application/json" };
}

function download(kind) {
  if (!last) return;
  const { text, type } = exportText(kind);
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = element("a", { href: url, download: `omen-odds.${kind}` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---- start ----

function start() {
  const hasProgram = restore();
  $("add-expression").addEventListener("click", () => addExpression("").querySelector(".expression-input").focus());
  $("calculator").addEventListener("submit", (event) => {
    event.preventDefault();
    calculate();
  });
  $("cancel").addEventListener("click", () => controller && controller.abort());
  $("dialect").addEventListener("change", offerRolls);
  for (const button of document.querySelectorAll("[data-export]")) {
    button.addEventListener("click", () => download(button.dataset.export));
  }
  $("transpose").addEventListener("change", () => {
    if (last) {
      last.settings.transpose = $("transpose").checked;
      history.replaceState(null, "", fragment(settings()));
      renderTable(last.settings, last.results);
    }
  });
  window.addEventListener("hashchange", () => restore() && calculate());
  $("permalink").href = location.href;
  if (hasProgram) calculate();
}

start();
