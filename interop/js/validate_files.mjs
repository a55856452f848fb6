// A user's Ajv script, the reference bench/validate.py times: one validator compiled from the named
// schema and every schema beside it (keyed by $id, strict mode, ajv-formats), then each listed file
// read, parsed and validated. Exit 1 if any file is invalid.
//
//   node validate_files.mjs SCHEMA_DIR ROOT_SCHEMA_FILE LISTING
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [dir, root, listing] = process.argv.slice(2);
const ajv = new Ajv2020({ strict: true, strictRequired: false });
addFormats(ajv);
for (const name of readdirSync(dir).filter((n) => n.endsWith(".schema.json"))) {
  ajv.addSchema(JSON.parse(readFileSync(join(dir, name), "utf8")));
}
const validate = ajv.getSchema(JSON.parse(readFileSync(join(dir, root), "utf8")).$id);
let bad = 0;
for (const file of readFileSync(listing, "utf8").split("\n").filter(Boolean)) {
  if (!validate(JSON.parse(readFileSync(file, "utf8")))) bad += 1;
}
process.exit(bad ? 1 : 0);
