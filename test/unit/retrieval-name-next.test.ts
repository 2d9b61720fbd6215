import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { builtinCatalog, tmpDir } from '../fixtures/helpers';
import { readFusion } from '../../src/core/fusion/store';
import { memoryFromFlow } from '../../src/core/eval/memory-from-flow';

/**
 * A next step the task names (`nameNext`): after a water index the practice flows' commonest step
 * is the plain threshold, and "with Otsu" asks for the Otsu threshold. The sequence parts read the
 * task only through the words past flows used; the forward name match says the task names the tool.
 */
test('name next: a tool the task names counts as a next step until it has run, by the rarity of the naming word', async () => {
  const shipped = readFusion(path.join(builtinCatalog, 'fusion.json'));
  assert.ok(shipped && (shipped.weights.nameNext ?? 0) > 0, `the builtin fit weighs nameNext: ${JSON.stringify(shipped?.weights)}`);
  const gw = await GeoWeave.open({ stateDir: tmpDir(), weights: shipped.weights });
  const without = await GeoWeave.open({ stateDir: tmpDir(), weights: { ...shipped.weights, nameNext: 0 } });
  try {
    const task = 'water mask from NDWI with Otsu, hectares of water';
    const forward = await gw.forwardCandidates(task, { k: 64 });
    const fwdName = (id: string) => forward.candidates.find((c) => c.id === id)?.parts.nameMatch ?? 0;
    const next = await gw.complementarySuggestions(memoryFromFlow(gw, task, ['cloud_mask', 'ndwi']), { k: 64 });
    const part = (id: string) => next.ranked.find((c) => c.id === id)?.parts.nameNext ?? 0;
    // The forward name match, for a tool not yet run: "Otsu" is rare in the catalog, so it counts more than "water".
    assert.ok(fwdName('otsu_threshold') > 0.5, `otsu_threshold nameMatch ${fwdName('otsu_threshold')}`);
    assert.equal(part('otsu_threshold'), fwdName('otsu_threshold'));
    assert.equal(part('ndwi'), 0, 'ndwi has run: the task asked for it and got it');
    assert.ok(fwdName('ndwi') > 0, 'ndwi is named by the task too');
    assert.equal(part('area_by_class'), 0, 'no word of its name is in the task');
    // Weighed as the builtin fit weighs it, the part lifts the named threshold by its weight, and
    // never lower than without it; as the product ships (the fit and its reranking trees) the named
    // threshold comes second, after the plain one the flows ran most (what comes third moves with
    // every refit of the builtin fusion: the other water index, or a quicklook of the index).
    const rank = (r: { ranked: { id: string }[] }) => r.ranked.findIndex((c) => c.id === 'otsu_threshold');
    const score = (r: { ranked: { id: string; score: number }[] }) => r.ranked.find((c) => c.id === 'otsu_threshold')!.score;
    const plain = await without.complementarySuggestions(memoryFromFlow(without, task, ['cloud_mask', 'ndwi']), { k: 64 });
    assert.ok(Math.abs(score(next) - score(plain) - shipped.weights.nameNext! * part('otsu_threshold')) < 2e-3, `${score(next)} − ${score(plain)}`);
    assert.ok(rank(next) <= rank(plain) && rank(next) <= 2, `${rank(next)} vs ${rank(plain)}: ${next.ranked.slice(0, 4).map((c) => c.id).join(', ')}`);
    const product = await GeoWeave.open({ stateDir: tmpDir() });
    try {
      const r = await product.complementarySuggestions(memoryFromFlow(product, task, ['cloud_mask', 'ndwi']), { k: 5 });
      assert.deepEqual(r.ranked.slice(0, 2).map((c) => c.id), ['threshold', 'otsu_threshold']);
    } finally {
      await product.dispose();
    }
    // Once it has run, it is not named as a next step again.
    const after = await gw.complementarySuggestions(memoryFromFlow(gw, task, ['cloud_mask', 'ndwi', 'otsu_threshold']), { k: 64 });
    assert.equal(after.ranked.find((c) => c.id === 'otsu_threshold')?.parts.nameNext ?? 0, 0);
  } finally {
    await gw.dispose();
    await without.dispose();
  }
});
