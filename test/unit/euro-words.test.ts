/** Spanish, Portuguese, French, German and Italian tasks read as English: accents, plurals,
 *  compounds and phrases, no stray translation of English text, and the product's rankings and
 *  reasons on such tasks. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EURO_DICTIONARY } from '../../src/core/embed/euro-dictionary';
import { foldAccents, phraseAt, splitCompound } from '../../src/core/embed/euro-words';
import { STOPWORDS, stem, tokenize } from '../../src/core/embed/tokenize';
import { GeoWeave } from '../../src/core/geoweave';
import { builtinManifestDir } from '../../src/core/manifests/package-root';
import { tmpDir } from '../fixtures/helpers';

const english = (words: string) => words.split(' ').map(stem);
const has = (tokens: string[], words: string) => english(words).every((t) => tokens.includes(t));

test('accents are optional, and only Latin letters lose them', () => {
  assert.equal(foldAccents('inundación'), 'inundacion');
  assert.equal(foldAccents('überschwemmungsgebiet'), 'uberschwemmungsgebiet');
  assert.equal(foldAccents('straße'), 'strasse');
  assert.equal(foldAccents('がぎ'), 'がぎ', 'kana keep their voicing marks');
  assert.deepEqual(tokenize('Mapa de inundación'), tokenize('mapa de inundacion'));
});

test('the glossary keys are written as the lookups fold them', () => {
  const bad = Object.keys(EURO_DICTIONARY).filter((k) => k !== foldAccents(k) || k !== k.toLowerCase() || /\s{2}|^\s|\s$/.test(k) || k.replace(/\s/g, '').length < 3 || !EURO_DICTIONARY[k].trim());
  assert.deepEqual(bad, []);
});

test('a Spanish, Portuguese, Italian or French domain word adds its English tokens, plurals included', () => {
  assert.ok(has(tokenize('las zonas inundadas del municipio'), 'flood'), tokenize('las zonas inundadas del municipio').join(' '));
  assert.ok(has(tokenize('inundaciones de 2023'), 'flood'));
  assert.ok(has(tokenize('áreas alagadas e inundações'), 'flood'), 'accented words read in any text');
  assert.ok(has(tokenize('immagini satellitari nuvolose della Sardegna'), 'cloud'));
  assert.ok(has(tokenize('carte des zones brûlées'), 'burn'));
  // The word itself stays a token: past tasks in the same language still match it.
  assert.ok(tokenize('inundación').includes(stem('inundacion')));
});

test('plain words are read as English unless the text is not: "table", "scene", "climate" stay themselves', () => {
  assert.deepEqual(tokenize('the climate table for the scene'), english('climate table scene'));
  assert.deepEqual(tokenize('scene climate table'), english('scene climate table'));
  assert.ok(has(tokenize('la tabla de clima de la escena'), 'table climate'));
});

test('a German compound is read by its parts, and a word that does not split whole is left alone', () => {
  const parts = splitCompound('hochwassergefahrenkarte');
  assert.ok(parts && parts.length >= 2, String(parts));
  const t = tokenize('Hochwassergefahrenkarte für den Landkreis');
  assert.ok(has(t, 'flood map'), t.join(' '));
  assert.equal(splitCompound('qqqqwassxxxx'), undefined);
});

test('a phrase is read whole, not word by word', () => {
  const r = [phraseAt('mapa de uso del suelo'.split(' '), 2)!];
  const readings = r.map((x) => x.english).join(' ');
  assert.match(readings, /land/);
  assert.ok(has(tokenize('uso del suelo'), 'land use'));
});

test('English text gets no translation: every word of the builtin manifests and practice tasks tokenizes as before', () => {
  const dir = builtinManifestDir()!;
  const texts: string[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json') && !x.includes('schema'))) texts.push(fs.readFileSync(path.join(dir, f), 'utf8'));
  for (const line of fs.readFileSync(path.join(dir, 'practice.jsonl'), 'utf8').split('\n')) if (line.trim()) texts.push(JSON.parse(line).query);
  const words = new Set<string>();
  for (const t of texts) for (const m of t.toLowerCase().matchAll(/[a-z]+/g)) words.add(m[0]);
  const stray: string[] = [];
  for (const w of words) {
    if (STOPWORDS.has(w)) continue;
    const got = tokenize(w);
    if (got.length !== 1 || got[0] !== stem(w)) stray.push(`${w} → ${got.join(' ')}`);
  }
  assert.ok(words.size > 1500, `${words.size} English words`);
  assert.deepEqual(stray, []);
});

let gw: GeoWeave | undefined;
after(async () => { await gw?.dispose(); });

test('Spanish and German tasks reach the English catalog, and the reason quotes the analyst\'s word', async () => {
  gw = await GeoWeave.open({ stateDir: tmpDir() });
  const es = await gw.forwardCandidates('Mapa de zonas inundadas a partir de la imagen de radar Sentinel-1', { k: 5 });
  assert.ok(es.candidates.some((c) => c.id === 'sar_flood_threshold'), es.candidates.map((c) => c.id).join(' '));
  const de = await gw.forwardCandidates('Hangneigung aus dem Geländemodell berechnen', { k: 3 });
  assert.equal(de.candidates[0].id, 'slope', de.candidates.map((c) => c.id).join(' '));
  const reason = es.candidates.find((c) => c.id === 'sar_flood_threshold')!.reason;
  assert.match(reason, /inundadas|radar/, reason);
});
