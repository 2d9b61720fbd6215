// Outputs of earlier steps that have nothing to do with a new task are not offered as its inputs: after
// a slope run, a (Chinese) vegetation task gets no candidate "ready" on the slope raster.
'use strict';
const path = require('path');

const TASK = '评估这片区域的植被健康状况';

module.exports = {
  name: 'readiness: outputs of unrelated earlier steps (a slope raster) are not offered to a vegetation task',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'unrelated.geonb'), 'terrain around the fields', ['slope as terrain\ndem: dem.tif']);
  },
  async run({ page, session, openFile, runCell, showPanel, describeTask, shot }) {
    await openFile(page, 'unrelated.geonb');
    const state = await runCell(page, /slope as terrain/);
    if (state !== 'ok') throw new Error('the slope cell did not run');
    const panel = await showPanel(page);
    const list = await describeTask(page, panel, TASK, session.userDir);
    await shot('candidates');
    const onSlope = list.filter((c) => /slope\.tif|_slope/.test(c.readiness));
    if (onSlope.length) throw new Error(`offered the slope output: ${onSlope.map((c) => `${c.id} "${c.readiness}"`).join('; ')}`);
    const ready = list.filter((c) => c.ready);
    return `${list.length} candidates, ${ready.length} ready: ${ready.slice(0, 4).map((c) => `${c.id} (${c.readiness.replace(/^ready: /, '')})`).join('; ')}`;
  },
};
