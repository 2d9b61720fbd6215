#!/usr/bin/env node
// `npm run demo`: the main job on the sample workspace, through the `geoweave` CLI exactly as an
// analyst would run it: write the sample data, ask for tools for a task, run the top one, ask what
// complements its result, run that, and write a report (sample/out/demo-report.md).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const sample = path.join(root, 'sample');
const out = path.join(sample, 'out');
const state = path.join(sample, '.geoweave-state');
const report = [];

function geoweave(args, { json = false } = {}) {
  const shown = ['geoweave', ...args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a))].join(' ');
  console.log(`\n$ ${shown}`);
  const r = spawnSync(process.execPath, [path.join(root, 'bin/geoweave.js'), ...args, ...(json ? ['--json'] : [])], {
    cwd: root, encoding: 'utf8', maxBuffer: 64 << 20,
  });
  if (r.status !== 0) {
    process.stderr.write(r.stderr || r.stdout);
    console.error(`demo: "${shown}" failed (exit ${r.status})`);
    process.exit(1);
  }
  if (!json) process.stdout.write(r.stdout);
  return json ? JSON.parse(r.stdout) : r.stdout;
}

const task = 'Which parts of the valley have stressed or sparse vegetation, and how many hectares is that?';
geoweave(['sample', sample]);
const common = ['--state', state, '--data', sample];

const suggestion = geoweave(['suggest', task, '--k', '5', ...common]);
report.push(`# GeoWeave demo\n\nTask: ${task}\n\n## Forward candidates\n\n\`\`\`\n${suggestion.trim()}\n\`\`\``);

const ndvi = geoweave(['run', 'ndvi', '--arg', 'image=sample/s2_scene.tif', '--out', out], { json: true });
console.log(`summary: ${ndvi.summary}\nquicklook: ${ndvi.quicklook}`);
report.push(`## ndvi\n\n${ndvi.summary}\n\n![NDVI](${path.relative(out, ndvi.quicklook)})`);

const next = geoweave(['next', '--task', task, '--done', 'ndvi', '--result', ndvi.summary, '--k', '5', ...common]);
report.push(`## What complements it\n\n\`\`\`\n${next.trim()}\n\`\`\``);

const mask = geoweave(['run', 'threshold', '--arg', `image=${ndvi.outputs.index}`, '--arg', 'op=lt', '--arg', 'value=0.3', '--out', out], { json: true });
console.log(`summary: ${mask.summary}`);
report.push(`## threshold NDVI < 0.3\n\n${mask.summary}\n\n![mask](${path.relative(out, mask.quicklook)})`);

const area = geoweave(['run', 'area_by_class', '--arg', `image=${mask.outputs.mask}`, '--out', out], { json: true });
console.log(`summary: ${area.summary}`);
report.push(`## area_by_class\n\n${area.summary}\n\nTable: ${path.relative(out, area.outputs.table)}`);

fs.mkdirSync(out, { recursive: true });
const reportPath = path.join(out, 'demo-report.md');
fs.writeFileSync(reportPath + '.tmp', report.join('\n\n') + '\n');
fs.renameSync(reportPath + '.tmp', reportPath);
console.log(`\ndemo: report written to ${path.relative(root, reportPath)}; outputs in ${path.relative(root, out)}/`);
