// Type-check artifacts against the generated TypeScript (generated/ts/index.d.ts) with tsc --strict.
//
//   node typecheck.mjs DECLARATIONS.d.ts [KIND=]FILE.json ...
//
// Each file becomes `const caseN: Kinds["<kind>"] = <its JSON>;` in one TypeScript file (the kind
// from KIND= or from the file's "$schema"), so an object literal's every member must be in its
// type, and tsc --strict checks them all with the declarations. Exit status: tsc's (0: all fit).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [declarations, ...files] = process.argv.slice(2);
if (declarations === undefined || files.length === 0) {
  process.stderr.write("usage: node typecheck.mjs DECLARATIONS.d.ts [KIND=]FILE.json ...\n");
  process.exit(2);
}
const lines = [`import type { Kinds } from ${JSON.stringify(resolve(declarations).replace(/\.d\.ts$/, ""))};`];
files.forEach((arg, n) => {
  const [kindGiven, path] = arg.includes("=") ? arg.split("=", 2) : [undefined, arg];
  const text = readFileSync(path, "utf8");
  const reference = JSON.parse(text).$schema ?? "";
  const kind = kindGiven ?? reference.split("/").slice(-2).join("/").replace(/\.schema\.json$/, "");
  lines.push(`// ${path}`, `export const case${n}: Kinds[${JSON.stringify(kind)}] = ${text.trim()};`);
});
const work = mkdtempSync(join(tmpdir(), "rcs-typecheck-"));
const source = join(work, "cases.ts");
writeFileSync(source, lines.join("\n") + "\n");
const tsc = join(dirname(fileURLToPath(import.meta.url)), "node_modules", "typescript", "bin", "tsc");
const done = spawnSync(process.execPath, [tsc, "--strict", "--noEmit", "--target", "es2022", "--module", "nodenext", source], {
  stdio: "inherit",
});
if (done.status === 0) process.stdout.write(`typecheck: ${files.length} artifact(s) fit their types\n`);
process.exit(done.status ?? 1);
