/** Runs the extension-host suite in a local VS Code with @vscode/test-electron. Nothing can be
 *  downloaded on these machines, so it needs VSCODE_EXECUTABLE_PATH and skips with a message
 *  otherwise. The path is VS Code's Electron executable, not the `code` CLI script (which returns at
 *  once): /usr/share/code/code on Linux, the executable in "Visual Studio Code.app/Contents/MacOS/"
 *  on macOS, Code.exe on Windows. It loads the extension from this folder (dist/, not the vsix), so
 *  build first: `npx tsc -p . && npx webpack --mode production`.
 *    VSCODE_EXECUTABLE_PATH=/usr/share/code/code node out/test/e2e/electron/runTest.js */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<number> {
  const vscodeExecutablePath = process.env.VSCODE_EXECUTABLE_PATH;
  if (!vscodeExecutablePath) {
    console.log('electron e2e skipped: set VSCODE_EXECUTABLE_PATH to a local VS Code binary (none can be downloaded here); npm run test:e2e covers the same ground in code-server');
    return 0;
  }
  const root = path.resolve(__dirname, '..', '..', '..', '..');
  if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run `npx webpack --mode production` first');
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-electron-'));
  const { writeSampleWorkspace } = await import('../../../src/core/raster/sample/generate');
  await writeSampleWorkspace(workspace);
  try {
    await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(__dirname, 'suite', 'index'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      extensionTestsEnv: { GEOWEAVE_TEST_WORKSPACE: workspace },
    });
    return 0;
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().then((code) => { process.exitCode = code; }, (e) => {
  console.error(`electron e2e failed: ${(e as Error).message}`);
  process.exitCode = 1;
});
