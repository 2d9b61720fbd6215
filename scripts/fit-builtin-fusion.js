#!/usr/bin/env node
// Fits the fusion weights of the builtin catalog on its shipped practice flows and writes
// tool-manifests/fusion.json, which a fresh install uses until its own flows are refitted.
// Run after changing a builtin manifest or practice.jsonl (a unit test checks the fingerprints).
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const { GeoWeave } = require(path.join(root, 'out', 'src', 'core', 'geoweave.js'));

(async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-fusion-'));
  try {
    const gw = await GeoWeave.open({ stateDir: state, onProgress: () => undefined });
    const st = await gw.refitFusion({ force: true });
    await gw.dispose();
    const out = path.join(root, 'tool-manifests', 'fusion.json');
    fs.copyFileSync(path.join(state, 'fusion.json'), out);
    const r = st.report;
    console.log(`wrote ${path.relative(root, out)}: fitted on ${r.flows} flows in ${r.seconds} s; out-of-fold next hit@3 ${r.next.before['hit@3']} → ${r.next.after['hit@3']}, forward R@10 ${r.forward.before['R@10']} → ${r.forward.after['R@10']}`);
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
})().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
