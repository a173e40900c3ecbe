// Forms from the rule sets' JSON Schemas, shared by the seed games' page and the table: objects
// become fieldsets (nested as deep as the schema goes), whole numbers number boxes, true/false check
// boxes, labels with a fixed set of values menus, optional values an empty choice, arrays of
// numbers or labels a list in one box, maps from names to numbers one box per name, and tagged
// unions (the actions) a menu of variants with the chosen one's fields. No game is named here.
//
// A shape the generator has no form for (an untagged union of objects, an array of objects) is
// edited as JSON in a text box, and the page says so beside it.

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

let fieldCount = 0;

// A schema key as people read it: `event_modifier` and `add-modifier` as "event modifier" and
// "add modifier". Keys that are names from a seed (`FITNESS`) keep their case.
export function humanise(key) {
  const words = String(key).replace(/[_-]+/g, " ").trim();
  return words === words.toLowerCase() ? words.charAt(0).toUpperCase() + words.slice(1) : words;
}

// A property's label: its own `title` when the schema gives one short enough to be a label, else
// its key humanised. A title reached through `$ref` is the type's, not the field's, and is not used.
function labelOf(key, property) {
  const title = property && typeof property.title === "string" ? property.title.trim() : "";
  return title && title.length <= 40 ? title : humanise(key);
}

// Help from doc comments, for people: rustdoc links (`[`Foo`]`, `[Foo](crate::x)`, `[crate::Foo]`)
// become their text, module paths (`super::resources::feat_data`) their last name, and code
// spans lose their backticks. A JSON example written into the text (`JSON: `{…}``) is returned
// apart, to be shown folded rather than in the middle of a sentence.
export function cleanHelp(text) {
  let help = String(text ?? "");
  let example = null;
  help = help.replace(/JSON:\s*`(\{[^`]*\})`\.?/g, (_, json) => {
    example = json;
    return "";
  });
  help = help
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[(`[^`\]]+`)\]/g, "$1")
    .replace(/\[((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\]/g, "$1")
    .replace(/(?:\b[a-z_]\w*::)+(\w+)/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
  return { help, example };
}

// The help of a schema as nodes: the cleaned text, and a JSON example folded under it.
export function helpNodes(text) {
  const { help, example } = cleanHelp(text);
  const nodes = help ? [help] : [];
  if (example) {
    nodes.push(element("details", { class: "json-example" },
      element("summary", {}, "the same as JSON"), element("code", {}, example)));
  }
  return nodes;
}

export function resolve(schema, defs) {
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

export function constants(schema, defs) {
  if (Array.isArray(schema.enum)) return schema.enum;
  const variants = schema.oneOf ?? schema.anyOf;
  // A union of constants and lists of constants (schemars writes one for an enum whose variants
  // carry their own descriptions): every value of every variant.
  if (variants && variants.every((v) => "const" in resolve(v, defs) || Array.isArray(resolve(v, defs).enum))) {
    return variants.flatMap((v) => ("const" in resolve(v, defs) ? [resolve(v, defs).const] : resolve(v, defs).enum));
  }
  return null;
}

// The tag of a tagged union's variant: the property whose schema is one constant.
export function tagOf(variant, defs) {
  for (const [key, property] of Object.entries(variant.properties ?? {})) {
    const p = resolve(property, defs);
    if ("const" in p) return { key, value: p.const };
    if (Array.isArray(p.enum) && p.enum.length === 1) return { key, value: p.enum[0] };
  }
  return null;
}

export function field(name, schema, value, defs, onChange, required = true) {
  const id = `field-${++fieldCount}`;
  const { schema: s, nullable } = unwrapOptional(schema, defs);
  const optional = nullable || !required;
  const described = s.description ? `${id}-help` : null;
  const help = described ? element("small", { id: described, class: "help" }, ...helpNodes(s.description)) : null;
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
  // A set drawn from a fixed list of values: one check box per value. A list whose order matters
  // (a ranking) or that may repeat a value is the lines of a text box, below.
  const itemChoices = type === "array" ? constants(resolve(s.items, defs), defs) : null;
  if (itemChoices && s.uniqueItems) {
    const box = element("fieldset", { class: "object choices" }, element("legend", {}, name));
    if (help) box.append(help);
    const chosen = new Set((current ?? []).map((c) => JSON.stringify(c)));
    const boxes = itemChoices.map((choice) => {
      const boxId = `field-${++fieldCount}`;
      const input = element("input", { id: boxId, type: "checkbox" });
      input.checked = chosen.has(JSON.stringify(choice));
      input.addEventListener("change", onChange);
      box.append(element("div", { class: "field choice" }, input, element("label", { for: boxId }, String(choice))));
      return [choice, input];
    });
    return { node: box, read: () => boxes.filter(([, input]) => input.checked).map(([choice]) => choice) };
  }
  if (type === "array" && (resolve(s.items, defs).type === "string" || itemChoices)) {
    const area = element("textarea", { id, rows: String(Math.max(2, (current ?? []).length)), spellcheck: "false" });
    area.value = (current ?? []).map(String).join("\n");
    area.addEventListener("input", onChange);
    const known = itemChoices ? `, from: ${itemChoices.map(String).join(", ")}` : "";
    // A value that reads as one of the fixed values is that value (a number stays a number).
    const value = (text) => (itemChoices ?? []).find((c) => String(c) === text) ?? text;
    return {
      node: wrap(area, element("span", { class: "note" }, ` one per line${known}`)),
      read: () => area.value.split("\n").map((t) => t.trim()).filter(Boolean).map(value),
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
  // Anything else: JSON in a text box, saying why (the label names the field; the note the shape).
  const area = element("textarea", { id, rows: "3", spellcheck: "false", class: "json", "data-json": "true" });
  area.value = JSON.stringify(current ?? (type === "array" ? [] : type === "object" ? {} : null));
  area.addEventListener("input", onChange);
  const shape = variants ? "a choice of shapes" : type === "array" ? "a list of groups" : "this shape";
  return {
    node: wrap(area, element("span", { class: "note json-note" }, ` as JSON: ${shape} has no form of its own`)),
    read: () => {
      try {
        return JSON.parse(area.value);
      } catch {
        return area.value;
      }
    },
  };
}

// Whole numbers typed in one box, separated by spaces, commas or both (`3 5 6`, `3, 5, 6`,
// `-1,0,1` for fudge dice): the numbers, or why the text is not such a list. Which numbers fit is
// the rules' to say (a face of the die rolled, as many as the action rolls), not the form's.
export function integerList(text) {
  const tokens = String(text ?? "").split(/[\s,]+/).filter(Boolean);
  const values = [];
  for (const token of tokens) {
    const value = /^[+-]?\d+$/.test(token) ? Number(token) : NaN;
    if (!Number.isSafeInteger(value)) {
      const why = Number.isNaN(value) ? "is not a whole number" : "is too large for a die";
      return { error: `“${token}” ${why}: give whole numbers separated by spaces or commas, e.g. 3 5 6` };
    }
    values.push(value);
  }
  return { values };
}

export function objectFields(schema, value, defs, onChange, into) {
  const required = new Set(schema.required ?? []);
  const parts = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const p = resolve(property, defs);
    if ("const" in p) {
      parts.push({ key, read: () => p.const });
      continue;
    }
    // A default written beside a `$ref` (schemars puts it there) belongs to this property.
    const fallback = property.default !== undefined ? property.default : p.default;
    const built = field(labelOf(key, property), property, value[key] ?? fallback, defs, onChange, required.has(key) || fallback !== undefined);
    into.append(built.node);
    parts.push({ key, read: built.read });
  }
  return parts;
}

// What a player may fill in of an action. The rule set declares once the action fields only the
// game master may set (`game_master_only.action`: paths such as `source`, or `offers/extra` inside
// an object), and the server refuses a player who sets one. An action that needs such a field is
// not the player's to take (null); an optional one is left out of the player's form, so the page
// never offers what the server refuses.
export function playerVariant(variant, paths, defs = {}) {
  const top = new Set();
  const nested = new Map();
  for (const path of paths) {
    const [head, ...rest] = path.split("/");
    if (!rest.length) top.add(head);
    else nested.set(head, [...(nested.get(head) ?? []), rest.join("/")]);
  }
  const required = new Set(variant.required ?? []);
  if ([...required].some((key) => top.has(key))) return null;
  const properties = {};
  for (const [key, property] of Object.entries(variant.properties ?? {})) {
    if (top.has(key)) continue;
    if (!nested.has(key)) {
      properties[key] = property;
      continue;
    }
    const inner = playerVariant(resolve(property, defs), nested.get(key), defs);
    if (inner === null) {
      if (required.has(key)) return null;
      continue;
    }
    // A default written beside a `$ref` belongs to the property, not to the type it names.
    properties[key] = property.default !== undefined ? { ...inner, default: property.default } : inner;
  }
  return { ...variant, properties };
}

export function readObject(parts) {
  const out = {};
  for (const { key, read } of parts) {
    const v = read();
    if (v !== undefined) out[key] = v;
  }
  return out;
}

// A tagged union (an action): a menu of its variants, then the chosen variant's fields.
export function union(name, variants, value, defs, onChange, filter = () => true, examples = []) {
  const id = `field-${++fieldCount}`;
  const shown = variants.filter((v) => filter(tagOf(v, defs).value));
  const box = element("fieldset", { class: "object" }, element("legend", {}, name));
  const select = element("select", { id });
  for (const v of shown) select.append(element("option", { value: JSON.stringify(tagOf(v, defs).value) }, humanise(tagOf(v, defs).value)));
  box.append(element("div", { class: "field" }, element("label", { for: id }, "Kind"), select));
  const inner = element("div");
  box.append(inner);
  let parts = [];
  const build = (initial) => {
    const variant = shown.find((v) => JSON.stringify(tagOf(v, defs).value) === select.value) ?? shown[0];
    inner.replaceChildren();
    if (variant?.description) inner.append(element("p", { class: "help" }, ...helpNodes(variant.description)));
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
    if (variant.description) inner.append(element("p", { class: "help" }, ...helpNodes(variant.description)));
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

