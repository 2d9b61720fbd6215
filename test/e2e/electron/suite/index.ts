/** Extension-host suite (no mocha): plain async checks with node:assert, run by runTest.ts inside
 *  a real VS Code with the sample workspace open. */
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

type Check = [name: string, fn: () => Promise<void>];

const workspace = () => process.env.GEOWEAVE_TEST_WORKSPACE ?? vscode.workspace.workspaceFolders![0].uri.fsPath;

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 60000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function writeNotebook(name: string, cells: { kind: 'tool' | 'markdown'; source: string[] }[]): vscode.Uri {
  const file = path.join(workspace(), name);
  fs.writeFileSync(file, JSON.stringify({ format: 'geoweave-notebook', version: 1, metadata: { memory: { task: 'vegetation health', trace: [], windowSize: 5 } }, cells }, null, 2) + '\n');
  return vscode.Uri.file(file);
}

async function runAll(nb: vscode.NotebookDocument): Promise<void> {
  await vscode.window.showNotebookDocument(nb);
  await vscode.commands.executeCommand('notebook.execute', nb.uri);
}

const checks: Check[] = [
  ['the extension activates and registers its commands', async () => {
    const ext = vscode.extensions.getExtension('geoweave.geoweave');
    assert.ok(ext, 'extension geoweave.geoweave is installed');
    await ext.activate();
    const ids = await vscode.commands.getCommands(true);
    for (const id of ['geoweave.newNotebook', 'geoweave.findTool', 'geoweave.suggestNext', 'geoweave.runAll', 'geoweave.clearMemory']) assert.ok(ids.includes(id), id);
  }],
  ['a tool cell runs: quicklook, markdown summary, JSON result, memory step', async () => {
    const uri = writeNotebook('electron-ok.geonb', [{ kind: 'tool', source: ['ndvi', 'image: s2_scene.tif', 'sensor: sentinel2_l2a'] }]);
    const nb = await vscode.workspace.openNotebookDocument(uri);
    await runAll(nb);
    const cell = nb.cellAt(0);
    const outputs = await until('outputs of the NDVI cell', () => (cell.outputs.length >= 3 ? cell.outputs : undefined), 120000);
    const mimes = outputs.flatMap((o) => o.items.map((i) => i.mime));
    for (const m of ['image/png', 'text/markdown', 'application/json', 'application/vnd.geoweave.result+json']) assert.ok(mimes.includes(m), `${m} in ${mimes.join(', ')}`);
    const md = new TextDecoder().decode(outputs.flatMap((o) => o.items).find((i) => i.mime === 'text/markdown')!.data);
    assert.match(md, /\*\*ndvi\*\*: .*NDVI/);
    const memory = await until('a memory step', () => ((nb.metadata.memory as { trace: unknown[] })?.trace.length === 1 ? nb.metadata.memory : undefined));
    assert.equal((memory as { trace: { tool: string }[] }).trace[0].tool, 'ndvi');
  }],
  ['a missing file fails with the engine message as an error output', async () => {
    const uri = writeNotebook('electron-missing.geonb', [{ kind: 'tool', source: ['ndvi', 'image: missing_scene.tif', 'sensor: sentinel2_l2a'] }]);
    const nb = await vscode.workspace.openNotebookDocument(uri);
    await runAll(nb);
    const item = await until('an error output', () => nb.cellAt(0).outputs.flatMap((o) => o.items).find((i) => i.mime === 'application/vnd.code.notebook.error'), 60000);
    const err = JSON.parse(new TextDecoder().decode(item.data)) as { message: string };
    assert.match(err.message, /missing_scene\.tif/);
  }],
  ['a corrupt notebook opens as one explaining markdown cell', async () => {
    const file = path.join(workspace(), 'electron-corrupt.geonb');
    fs.writeFileSync(file, '{ not json');
    const nb = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    assert.equal(nb.cellCount, 1);
    assert.match(nb.cellAt(0).document.getText(), /could not be opened/);
  }],
];

export async function run(): Promise<void> {
  let failed = 0;
  for (const [name, fn] of checks) {
    try {
      await fn();
      console.log(`ok - ${name}`);
    } catch (e) {
      failed++;
      console.log(`not ok - ${name}: ${(e as Error).message}`);
    }
  }
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  if (failed) throw new Error(`${failed} extension-host check(s) failed`);
}
