// The affect extension: highlighting, snippets and language configuration come from
// package.json; this file only starts the language server (`affect lsp`, over stdio) when an
// `affect` executable that has an `lsp` command is found. Without one the extension still
// highlights, and says why in the "affect" output channel.
'use strict';

const vscode = require('vscode');
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');

/** @type {import('vscode-languageclient/node').LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel | undefined} */
let output;

function log(message) {
  if (!output) output = vscode.window.createOutputChannel('affect');
  output.appendLine(message);
}

/** The executable for `command`: itself when it is a path, else the first match on PATH. */
function resolveExecutable(command) {
  if (!command) return undefined;
  const isFile = (p) => {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/') || command.includes('\\')) {
    return isFile(command) ? command : undefined;
  }
  const extensions = process.platform === 'win32'
    ? (process.env.PATHEXT || '.EXE;.CMD;.BAT').split(';').concat([''])
    : [''];
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, command + ext);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** True when `affect --help` lists an `lsp` command (older builds have none). */
function hasLspCommand(executable) {
  return new Promise((resolve) => {
    childProcess.execFile(executable, ['--help'], { timeout: 5000 }, (error, stdout) => {
      resolve(!error && /^\s+lsp\b/m.test(String(stdout)));
    });
  });
}

async function activate(context) {
  const config = vscode.workspace.getConfiguration('affect');
  if (!config.get('server.enabled', true)) {
    log('affect.server.enabled is false: highlighting only.');
    return;
  }
  const command = config.get('server.path', 'affect');
  const executable = resolveExecutable(command);
  if (!executable) {
    log(`\`${command}\` was not found on the PATH: highlighting only. Install affect or set affect.server.path.`);
    return;
  }
  if (!(await hasLspCommand(executable))) {
    log(`${executable} has no \`lsp\` command: highlighting only.`);
    return;
  }

  let languageclient;
  try {
    languageclient = require('vscode-languageclient/node');
  } catch (err) {
    log(`vscode-languageclient is missing (${err.message}): highlighting only. Run \`npm ci\` in the extension folder.`);
    return;
  }

  const run = { command: executable, args: ['lsp'], transport: languageclient.TransportKind.stdio };
  const serverOptions = { run, debug: run };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'affect' },
      { scheme: 'untitled', language: 'affect' },
    ],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.affect'),
    },
    outputChannelName: 'affect language server',
  };
  client = new languageclient.LanguageClient('affect', 'affect language server', serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  try {
    await client.start();
    log(`Started ${executable} lsp.`);
  } catch (err) {
    log(`Could not start ${executable} lsp: ${err && err.message ? err.message : err}`);
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
