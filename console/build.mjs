// Rebuilds the console into ../assets/console (committed, so `cargo build` never needs Node):
//   cd console && npm ci && node build.mjs
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "../assets/console");
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(here, "src/app.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  outfile: join(out, "app.js"),
  metafile: true,
  legalComments: "none",
});
await build({ entryPoints: [join(here, "src/app.css")], minify: true, outfile: join(out, "app.css") });
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));

// Every npm package that ended up in the bundle, with its license text.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (m) packages.add(m[1]);
}
let licenses = "Third-party code in app.js (bundled by console/build.mjs):\n";
for (const name of [...packages].sort()) {
  const dir = join(here, "node_modules", name);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f) && statSync(join(dir, f)).isFile());
  licenses += `\n==== ${name} ${meta.version} (${meta.license}) ====\n`;
  licenses += file ? readFileSync(join(dir, file), "utf8") : `${meta.license}\n`;
}
writeFileSync(join(out, "LICENSES.txt"), licenses);
for (const f of ["index.html", "app.js", "app.css", "LICENSES.txt"]) {
  console.log(`${f}: ${statSync(join(out, f)).size} bytes`);
}
