#!/usr/bin/env node
// Smoke test of extension.js outside VS Code: `vscode` and `vscode-languageclient/node` are
// replaced by stubs, and fake `affect` executables on the PATH decide what activation does.
//
//   - no `affect` on the PATH: highlighting only, no client;
//   - an `affect` without an `lsp` command: highlighting only, no client;
//   - an `affect` with `lsp`: a client that runs `affect lsp` over stdio, for .affect files.
'use strict';

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

const logged = [];
const clients = [];
const stubs = {
  vscode: {
    window: { createOutputChannel: () => ({ appendLine: (line) => logged.push(line) }) },
    workspace: {
      getConfiguration: () => ({ get: (_key, fallback) => fallback }),
      createFileSystemWatcher: (glob) => ({ glob }),
    },
  },
  'vscode-languageclient/node': {
    TransportKind: { stdio: 0 },
    LanguageClient: class {
      constructor(id, name, serverOptions, clientOptions) {
        Object.assign(this, { id, name, serverOptions, clientOptions, started: false });
        clients.push(this);
      }
      start() {
        this.started = true;
        return Promise.resolve();
      }
      stop() {
        return Promise.resolve();
      }
    },
  },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (Object.prototype.hasOwnProperty.call(stubs, request)) return stubs[request];
  return load.call(this, request, parent, isMain);
};

const extension = require('../extension.js');

function fakeAffect(dir, helpText) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'affect');
  // Shell built-ins only: the PATH of the test holds nothing but this fake.
  const lines = helpText.split('\n').map((l) => `echo '${l}'`).join('\n');
  fs.writeFileSync(file, `#!/bin/sh\n${lines}\n`, { mode: 0o755 });
  return file;
}

async function activateWith(pathValue) {
  logged.length = 0;
  clients.length = 0;
  const saved = process.env.PATH;
  process.env.PATH = pathValue;
  try {
    await extension.activate({ subscriptions: [] });
  } finally {
    process.env.PATH = saved;
  }
}

async function main() {
  if (process.platform === 'win32') {
    console.log('extension: skipped on Windows (the fake executables are shell scripts)');
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'affect-ext-'));
  let passed = 0;
  try {
    await activateWith(path.join(tmp, 'empty'));
    assert.strictEqual(clients.length, 0);
    assert.match(logged.join('\n'), /was not found on the PATH/);
    passed++;

    fakeAffect(path.join(tmp, 'old'), 'Commands:\n  check    Check files\n  fmt      Format files');
    await activateWith(path.join(tmp, 'old'));
    assert.strictEqual(clients.length, 0);
    assert.match(logged.join('\n'), /has no `lsp` command/);
    passed++;

    const exe = fakeAffect(path.join(tmp, 'new'), 'Commands:\n  check    Check files\n  lsp      Run the language server');
    await activateWith(path.join(tmp, 'new'));
    assert.strictEqual(clients.length, 1, logged.join("\n"));
    const [client] = clients;
    assert.strictEqual(client.serverOptions.run.command, exe);
    assert.deepStrictEqual(client.serverOptions.run.args, ['lsp']);
    assert.strictEqual(client.serverOptions.run.transport, 0);
    assert.deepStrictEqual(client.clientOptions.documentSelector.map((s) => s.language), ['affect', 'affect']);
    assert.ok(client.started);
    passed++;

    // Formatting keeps a document's final-newline state (as Vim needs); VS Code adds the
    // final newline `affect fmt` writes when it saves an affect file.
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    assert.strictEqual(manifest.contributes.configurationDefaults['[affect]']['files.insertFinalNewline'], true);
    passed++;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`extension: ${passed} passed, 0 failed`);
}

main().catch((err) => {
  console.error(err);
  console.log('extension: 0 passed, 1 failed');
  process.exitCode = 1;
});
