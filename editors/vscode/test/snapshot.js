#!/usr/bin/env node
// Tokenizer snapshot test for the TextMate grammar.
//
// Tokenizes every examples/*.affect and tests/fixtures/syntax/pass/*.affect file of the
// repository with vscode-textmate + vscode-oniguruma (the engine VS Code itself uses) and
// compares the result with the committed snapshots in test/snapshots/. A snapshot shows each
// source line (`>`) followed by one line per token: carets under the token and its scopes.
//
//   npm run test:snapshots                        compare
//   UPDATE_SNAPSHOTS=1 npm run test:snapshots     write the snapshots anew (also deletes
//                                                 snapshots whose source file is gone)
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const extensionDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(extensionDir, '..', '..');
const grammarPath = path.join(extensionDir, 'syntaxes', 'affect.tmLanguage.json');
const snapshotDir = path.join(__dirname, 'snapshots');
const update = ['1', 'true', 'yes'].includes(String(process.env.UPDATE_SNAPSHOTS || '').toLowerCase());

// Source directories (relative to the repository) and the snapshot folder for each.
const SOURCES = [
  { dir: 'examples', snapshots: 'examples' },
  { dir: path.join('tests', 'fixtures', 'syntax', 'pass'), snapshots: 'fixtures' },
];

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.affect') return null;
      return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath);
    },
  });
  return registry.loadGrammar('source.affect');
}

function snapshotOf(grammar, text) {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out = [];
  let state = vsctm.INITIAL;
  for (const line of lines) {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    out.push('>' + line);
    for (const token of result.tokens) {
      const end = Math.min(token.endIndex, line.length);
      if (line.slice(token.startIndex, end).trim() === '') continue;
      out.push('#' + ' '.repeat(token.startIndex) + '^'.repeat(end - token.startIndex) + ' ' + token.scopes.join(' '));
    }
  }
  return out.join('\n') + '\n';
}

function firstDifference(expected, actual) {
  const e = expected.split('\n');
  const a = actual.split('\n');
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] !== a[i]) {
      return `  line ${i + 1}\n    expected: ${e[i] === undefined ? '<end>' : e[i]}\n    actual:   ${a[i] === undefined ? '<end>' : a[i]}`;
    }
  }
  return '';
}

async function main() {
  const grammar = await loadGrammar();
  let passed = 0;
  let failed = 0;
  const seen = new Set();
  for (const source of SOURCES) {
    const dir = path.join(repoRoot, source.dir);
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.affect')).sort() : [];
    for (const file of files) {
      const rel = path.join(source.dir, file);
      const snapPath = path.join(snapshotDir, source.snapshots, file + '.snap');
      seen.add(snapPath);
      const actual = snapshotOf(grammar, fs.readFileSync(path.join(dir, file), 'utf8'));
      if (update) {
        fs.mkdirSync(path.dirname(snapPath), { recursive: true });
        const old = fs.existsSync(snapPath) ? fs.readFileSync(snapPath, 'utf8') : null;
        if (old !== actual) {
          fs.writeFileSync(snapPath, actual);
          console.log(`updated ${path.relative(extensionDir, snapPath)}`);
        }
        passed++;
        continue;
      }
      if (!fs.existsSync(snapPath)) {
        console.log(`FAIL ${rel}: no snapshot ${path.relative(extensionDir, snapPath)} (run with UPDATE_SNAPSHOTS=1)`);
        failed++;
        continue;
      }
      const expected = fs.readFileSync(snapPath, 'utf8');
      if (expected === actual) {
        console.log(`ok   ${rel}`);
        passed++;
      } else {
        console.log(`FAIL ${rel}: tokens differ from ${path.relative(extensionDir, snapPath)}`);
        console.log(firstDifference(expected, actual));
        failed++;
      }
    }
  }
  // Snapshots whose source file is gone.
  for (const source of SOURCES) {
    const dir = path.join(snapshotDir, source.snapshots);
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.snap'))) {
      const snapPath = path.join(dir, file);
      if (seen.has(snapPath)) continue;
      if (update) {
        fs.unlinkSync(snapPath);
        console.log(`deleted ${path.relative(extensionDir, snapPath)}`);
      } else {
        console.log(`FAIL obsolete snapshot ${path.relative(extensionDir, snapPath)} (run with UPDATE_SNAPSHOTS=1)`);
        failed++;
      }
    }
  }
  if (failed > 0) {
    console.log('\nTo accept the new tokens after checking them: UPDATE_SNAPSHOTS=1 npm run test:snapshots');
  }
  console.log(`snapshots: ${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
