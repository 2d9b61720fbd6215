// "Compute NDVI for … L7_ETMs.tif": the prefilled arguments use the file the task names and say so;
// the scene has no band descriptions, so the bands come from a guessed sensor, flagged as a guess.
// Then a copy of the scene lands under a new name (a download finishing: written, then renamed) and a
// task naming it is sent at once, before the file watcher has told anyone: NDVI is ready on the new
// file, not on a scene the old file list held.
'use strict';
const path = require('path');
const fs = require('fs');

const TASK = 'Compute NDVI for the Landsat scene L7_ETMs.tif';

module.exports = {
  name: 'readiness on the named file: NDVI for L7_ETMs.tif uses that file, says so, and flags the guessed bands',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'named-file.geonb'), '', ['# NDVI of the Landsat 7 scene']);
  },
  async run({ page, session, ws, openFile, showPanel, describeTask, extensionLog, until, cellTexts, cellState, outputTexts, shot }) {
    await openFile(page, 'named-file.geonb');
    const panel = await showPanel(page);
    const list = await describeTask(page, panel, TASK, session.userDir);
    const ndvi = list.find((c) => c.id === 'ndvi');
    if (!ndvi) throw new Error(`no NDVI candidate: ${list.map((c) => c.id).join(', ')}`);
    await shot('candidates');
    if (!ndvi.ready || !/image=L7_ETMs\.tif/.test(ndvi.readiness)) throw new Error(`NDVI is "${ndvi.readiness}", not ready on L7_ETMs.tif`);
    if (!/red=3/.test(ndvi.readiness) || !/nir=4/.test(ndvi.readiness)) throw new Error(`NDVI does not prefill the guessed Landsat 7 bands: "${ndvi.readiness}"`);
    if (!/L7_ETMs\.tif \(named in the task\)/.test(ndvi.reason)) throw new Error(`the reason does not say the task named the file: "${ndvi.reason}"`);
    if (!/guess/i.test(ndvi.caveat) || !/Landsat 7/.test(ndvi.caveat)) throw new Error(`the guessed bands are not flagged: "${ndvi.caveat}"`);
    // No candidate is "ready" on another scene for this task.
    const elsewhere = list.filter((c) => c.ready && /image=(s2_scene|fire_|urban_|thermal_)/.test(c.readiness));
    if (elsewhere.length) throw new Error(`ready on a file the task did not name: ${elsewhere.map((c) => `${c.id} ${c.readiness}`).join('; ')}`);
    await panel.click('#forward-list li[data-tool="ndvi"] button.insert-run');
    const cell = await until('the inserted NDVI cell', async () => (await cellTexts(page)).find((t) => /^ndvi/.test(t.trim())), 60000);
    for (const line of ['image: landsat/L7_ETMs.tif', 'red: 3', 'nir: 4']) if (!cell.includes(line)) throw new Error(`the cell lacks "${line}": ${JSON.stringify(cell)}`);
    const state = await until('the NDVI cell to finish', async () => { const s = await cellState(page, /^ndvi/); return s === 'ok' || s === 'error' ? s : null; }, 120000);
    const text = await outputTexts(page);
    if (state !== 'ok') throw new Error(`the NDVI run failed: ${text.slice(0, 300)}`);
    const summary = text.split('\n').find((l) => /Mean NDVI/.test(l)) ?? '';
    const fresh = await justDownloaded({ page, panel, ws, describeTask, extensionLog, userDir: session.userDir });
    // A typo in the name: not ready on another scene, and the likely file offered.
    const typo = (await describeTask(page, panel, 'Compute NDVI for L7_ETM.tif', session.userDir)).find((c) => c.id === 'ndvi');
    if (typo?.ready || !/L7_ETM\.tif, which the task names, is not among the data found here; did you mean L7_ETMs\.tif\?/.test(`${typo?.reason} ${typo?.readiness}`)) throw new Error(`NDVI for a misspelt L7_ETM.tif: "${typo?.readiness}" / "${typo?.reason}"`);
    return `ndvi: "${ndvi.readiness}"; reason "…${ndvi.reason.slice(ndvi.reason.indexOf('needs'))}"; caveat "${ndvi.caveat.slice(0, 90)}…"; cell ran: "${summary.trim().slice(0, 80)}"; a file named at once after it landed: ${fresh}; a typo: "${typo.reason.slice(typo.reason.indexOf('needs'))}"`;
  },
};

async function justDownloaded({ page, panel, ws, describeTask, extensionLog, userDir }) {
  // The scene arrives in a folder renamed into place, as unpackers and download managers finish:
  // a file watcher reports the folder, not always the files in it.
  const name = 'LE07_20240601_fresh.tif';
  const part = path.join(ws, '.fresh.part');
  const folder = path.join(ws, 'fresh');
  try {
    fs.mkdirSync(part);
    fs.copyFileSync(path.join(ws, 'landsat', 'L7_ETMs.tif'), path.join(part, name));
    fs.renameSync(part, folder);
    const list = await describeTask(page, panel, `Compute NDVI for ${name}`, userDir);
    const ndvi = list.find((c) => c.id === 'ndvi');
    if (!ndvi?.ready || !ndvi.readiness.includes(`image=${name}`)) throw new Error(`NDVI for ${name}, named right after it landed, is "${ndvi?.readiness}"`);
    // Whether the watcher had reported it by then or the panel looked again on the spot.
    const relisted = extensionLog(userDir).includes(`the task names ${name}, not in the file list yet`);
    return `"${ndvi.readiness}" (${relisted ? 'listed again on the spot' : 'already reported by the watcher'})`;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(part, { recursive: true, force: true });
  }
}
