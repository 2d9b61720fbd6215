/** The agricultural glossary written blind (euro-agriculture.ts): its keys follow the first
 *  dictionary's rules, field and farm words of five languages read as English, and a Spanish claim
 *  or yield task reaches an English catalog's tool. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { EURO_AGRICULTURE } from '../../src/core/embed/euro-agriculture';
import { EURO_DICTIONARY } from '../../src/core/embed/euro-dictionary';
import { foldAccents } from '../../src/core/embed/euro-words';
import { stem, tokenize } from '../../src/core/embed/tokenize';
import { GeoWeave } from '../../src/core/geoweave';
import { tmpDir, writeJson } from '../fixtures/helpers';

const reads = (text: string, words: string) => {
  const tokens = tokenize(text);
  return words.split(' ').map(stem).every((t) => tokens.includes(t));
};

test('agricultural keys are folded words or phrases of 1 to 4 words, values plain English, none redefines a first entry', () => {
  const bad = Object.entries(EURO_AGRICULTURE).filter(([k, v]) => foldAccents(k) !== k || !/^[a-z0-9]+( [a-z0-9]+){0,3}$/.test(k) || !/^[a-z0-9][a-z0-9 -]*$/.test(v));
  assert.deepEqual(bad, []);
  assert.ok(Object.keys(EURO_AGRICULTURE).length > 900);
  assert.deepEqual(Object.keys(EURO_AGRICULTURE).filter((k) => Object.hasOwn(EURO_DICTIONARY, k)), []);
});

test('field, yield and damage words of five languages read as English', () => {
  assert.ok(reads('granizo en las parcelas de trigo', 'hail field wheat'), tokenize('granizo en las parcelas de trigo').join(' '));
  assert.ok(reads('Mapa de rinde del lote 4', 'yield field'));
  assert.ok(reads('grêle sur les parcelles de blé', 'hail field'));
  assert.ok(reads('danni da grandine sul frumento', 'hail'));
  assert.ok(reads('Hagelschaden am Weizen', 'hail damage'));
  // An English task keeps its own words: "olive" and "pasture" are not read as Spanish.
  assert.deepEqual(tokenize('map the olive groves and pasture'), ['map', stem('olive'), stem('groves'), stem('pasture')]);
});

let gw: GeoWeave | undefined;
after(async () => { await gw?.dispose(); });

test('Spanish farm tasks reach an English catalog\'s tools: hail, yield, frost', async () => {
  const dir = tmpDir();
  const tool = (id: string, description: string) => writeJson(path.join(dir, `${id}.json`), { id, description, inputs: [{ name: 'image', type: 'raster' }] });
  tool('hail_damage', 'Assesses hail damage on insured fields from before and after imagery for a claim.');
  tool('yield_clean', 'Cleans yield monitor data from the combine and grids it into a yield map per field.');
  tool('pivot_detect', 'Detects centre pivot irrigation circles in an image.');
  tool('frost_check', 'Flags frost damage from minimum temperatures and the crop growth stage.');
  tool('cloud_mask', 'Masks clouds and shadows in an optical scene.');
  gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir() });
  const first = async (q: string) => (await gw!.forwardCandidates(q, { k: 3 })).candidates[0]?.id;
  // Each decided by a word only this glossary has (pedrisco, rinde, helada; lote, cebada, girasol).
  assert.equal(await first('Pedrisco en la cebada del lote 3'), 'hail_damage');
  assert.equal(await first('El rinde del trigo por lote'), 'yield_clean');
  assert.equal(await first('Helada en el girasol recién emergido'), 'frost_check');
});
