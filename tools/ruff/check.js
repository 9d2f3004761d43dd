// Runs Ruff's linter (its WebAssembly build) over Python files with the settings of the
// repository's ruff.toml, printing "FILE:LINE:COLUMN: CODE message" per finding; exits 1
// when there is any. Usage: node tools/ruff/check.js FILE.py...
'use strict';
const fs = require('fs');
const path = require('path');
const ruff = require('@astral-sh/ruff-wasm-nodejs');
const toml = require('smol-toml');

const settings = toml.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'ruff.toml'), 'utf8'));
const workspace = new ruff.Workspace(settings, ruff.PositionEncoding.Utf16);
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const d of workspace.check(fs.readFileSync(file, 'utf8'))) {
    console.log(`${file}:${d.start_location.row}:${d.start_location.column}: ${d.code} ${d.message}`);
    ++findings;
  }
}
if (findings > 0) {
  console.log(`ruff: ${findings} finding(s)`);
  process.exit(1);
}
