import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../fixtures/helpers';

const readJson = (...p: string[]) => JSON.parse(fs.readFileSync(path.join(repoRoot, ...p), 'utf8'));

/** Every "%key%" placeholder in the manifest, wherever it is. */
function nlsKeys(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') { const m = /^%(.+)%$/.exec(v); if (m) out.add(m[1]); }
  else if (Array.isArray(v)) v.forEach((x) => nlsKeys(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => nlsKeys(x, out));
  return out;
}

const placeholders = (s: string) => [...s.matchAll(/\{(\d+)\}|`[^`]+`|command:[\w.]+/g)].map((m) => m[0]).sort();

test('every contributed string of package.json comes from package.nls.json, with a Simplified Chinese translation', () => {
  const pkg = readJson('package.json');
  const en = readJson('package.nls.json');
  const zh = readJson('package.nls.zh-cn.json');
  const keys = nlsKeys(pkg);
  assert.ok(keys.size >= 40, `only ${keys.size} localised strings`);
  for (const k of keys) {
    assert.equal(typeof en[k], 'string', `package.nls.json has no "${k}"`);
    assert.equal(typeof zh[k], 'string', `package.nls.zh-cn.json has no "${k}"`);
    assert.deepEqual(placeholders(zh[k]), placeholders(en[k]), `"${k}": code spans, links and placeholders kept`);
  }
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort(), 'the two nls files have the same keys');
  for (const c of pkg.contributes.commands) assert.match(c.title, /^%command\..+\.title%$/, `${c.command} title is not localised`);
  for (const [k, v] of Object.entries<Record<string, unknown>>(pkg.contributes.configuration.properties)) {
    assert.ok(typeof (v.description ?? v.markdownDescription) === 'string' && /^%.+%$/.test(String(v.description ?? v.markdownDescription)), `${k} description is not localised`);
  }
  // The Chinese titles are Chinese (not English left over), the brand and the API name excepted.
  for (const k of keys) if (k.endsWith('.title') && k !== 'configuration.title') assert.match(zh[k], /[\u4e00-\u9fff]/, `"${k}" is not translated: ${zh[k]}`);
});

test('the packaged extension ships the nls files and the l10n bundles', () => {
  const ignore = fs.readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8');
  for (const line of ['!package.nls.json', '!package.nls.*.json', '!l10n/**']) assert.ok(ignore.includes(line), line);
});
