// Judge a corpus with Ajv over a bundle written by `rcs schema export DIR` (SPEC.md 2.4).
//
//   node check.mjs BUNDLE_DIR MANIFEST.json     (interop/manifest.json)
//
// Every schema of the bundle goes into one Ajv2020 instance in strict mode, keyed by its $id, with
// ajv-formats; nothing is fetched. Each case is {"id", "kind", "text", "schema_valid", ...}: its JSON
// text is parsed and validated against its kind's schema, and the verdict must be schema_valid. A
// case whose schema_valid is null is text rcs refuses before any schema (I-JSON): not judged here.
// Prints one JSON line {"schemas", "checked", "skipped", "disagreements"}; exit 0 only when every
// checked case agrees, 2 when the bundle or the corpus cannot be read or a schema does not compile.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";

function load(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

// An integer literal beyond a double (rcs reads integers exactly) parses as Infinity here: held as
// the largest double of its sign, it stays a number, an integer, and beyond every bound a schema
// may set (rcs's lint keeps bounds within 2**63). Fractions and exponents that overflow are I-JSON
// cases, not judged.
function exact(key, value) {
  return typeof value === "number" && !Number.isFinite(value) ? Math.sign(value) * Number.MAX_VALUE : value;
}

// A case's text: a file beside the manifest, or "<list>.json#<id>", the case of that id in a JSON
// list of {"id", "text"} (read once).
const lists = new Map();
function textOf(manifest, file) {
  const [path, id] = file.split("#");
  const full = join(dirname(manifest), path);
  if (id === undefined) return readFileSync(full, "utf8");
  if (!lists.has(full)) lists.set(full, new Map(load(full).map((c) => [c.id, c.text])));
  const text = lists.get(full).get(id);
  if (text === undefined) throw new Error(`${file}: no such case`);
  return text;
}

function main(argv) {
  if (argv.length !== 2) {
    process.stderr.write("usage: node check.mjs BUNDLE_DIR MANIFEST.json\n");
    return 2;
  }
  const [bundle, corpus] = argv;
  let ajv, kinds, cases;
  try {
    const catalog = load(join(bundle, "catalog.json"));
    if (catalog.format !== 1) throw new Error(`catalog format ${catalog.format} is not 1`);
    // Strict mode, all of it but strictRequired, which is off by default: it cannot see properties
    // declared beside an applicator (a `required` inside `oneOf`), and would refuse a correct schema.
    ajv = new Ajv2020({ strict: true, strictRequired: false });
    addFormats(ajv);
    // The catalog's shapes: the whole text must match one, besides the format's own checks.
    for (const [name, { shape }] of Object.entries(catalog.formats)) {
      const own = fullFormats[name];
      const check = typeof own === "function" ? own : own.validate;
      const whole = new RegExp(`^(?:${shape})$`, "u");
      ajv.addFormat(name, { type: "string", validate: (text) => whole.test(text) && check(text) });
    }
    const schemas = catalog.files.filter((f) => f.role === "schema" || f.role === "table-schema");
    for (const f of schemas) ajv.addSchema(load(join(bundle, f.file)));
    kinds = new Map();
    for (const f of schemas) {
      const validate = ajv.getSchema(f.id); // compiles now: strict mode refuses here
      if (f.role === "schema") kinds.set(f.kind, validate);
    }
    const manifest = load(corpus);
    if (manifest.format !== 1) throw new Error(`manifest format ${manifest.format} is not 1`);
    cases = manifest.cases;
  } catch (error) {
    process.stderr.write(`check.mjs: ${error.message}\n`);
    return 2;
  }
  const disagreements = [];
  let checked = 0;
  let skipped = 0;
  for (const c of cases) {
    if (c.schema_valid === null) {
      skipped += 1;
      continue;
    }
    const validate = kinds.get(c.kind);
    if (validate === undefined) {
      disagreements.push({ id: c.id, problem: `no schema for kind ${c.kind}` });
      continue;
    }
    checked += 1;
    const valid = validate(JSON.parse(textOf(corpus, c.file), exact));
    if (valid !== c.schema_valid) {
      disagreements.push({ id: c.id, expected: c.schema_valid, ajv: valid, errors: validate.errors });
    }
  }
  process.stdout.write(JSON.stringify({ schemas: kinds.size, checked, skipped, disagreements }) + "\n");
  return disagreements.length === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
