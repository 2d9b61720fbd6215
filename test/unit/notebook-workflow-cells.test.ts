/** The cells "Insert workflow" writes: each step prefilled from its readiness, and the steps chained
 *  (a product input takes the step before it), over the shipped workflow templates. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../src/core/manifests/load';
import { workflowCalls } from '../../src/core/notebook/suggested-cell';
import { printToolCall } from '../../src/core/notebook/tool-cell';

const { tools, workflows } = loadCatalog({});
const manifest = (id: string) => tools.find((t) => t.manifest.id === id)?.manifest;

/** The cells of workflow `id` as printed, with `ready` the readiness arguments per tool. */
function cells(id: string, ready: Record<string, Record<string, unknown>>, earlier: { name: string; tool: string }[] = []): string[] {
  const wf = workflows.find((w) => w.id === id);
  assert.ok(wf, `workflow ${id}`);
  const steps = wf.steps.map((tool) => ({ tool, args: ready[tool] ?? {}, manifest: manifest(tool) }));
  return workflowCalls(steps, earlier, '/ws').map(printToolCall);
}

test('crop monitoring: zonal statistics over the NDVI the workflow computes, not over an NDVI file the data offered; the scene and the fields as the data gave them', () => {
  // As seen in a session: readiness offered last year's NDVI (an earlier output) for zonal_stats.
  const c = cells('crop_monitoring', {
    cloud_mask: { image: '/ws/landsat' },
    ndvi: { image: '/ws/landsat' },
    zonal_stats: { image: '/ws/.geoweave/outputs/analysis/ndvi_3/s2_20230718_stack_ndvi.tif', zones: '/ws/vectors/fields.shp' },
  }, [{ name: 'ndvi', tool: 'ndvi' }, { name: 'zonal_stats', tool: 'zonal_stats' }]);
  assert.equal(c[0], 'cloud_mask\nimage: landsat');
  assert.equal(c[1], 'ndvi as ndvi_2\nimage: landsat', 'NDVI reads the scene, named apart from the earlier ndvi cell');
  assert.equal(c[2], 'zonal_stats as zonal_stats_2\nimage: $ndvi_2.index\nzones: vectors/fields.shp');
});

test('flood extent: Otsu over the MNDWI, morphology over its mask, area and polygons of the cleaned mask', () => {
  const c = cells('flood_extent', { mndwi: { image: '/ws/s2' }, otsu_threshold: { image: '/ws/out/s2_ndvi.tif' } });
  assert.match(c[1], /^mndwi\nimage: s2$/);
  assert.match(c[2], /^otsu_threshold\nimage: \$mndwi\.index$/);
  assert.match(c[3], /^morphology\nimage: \$otsu_threshold\.mask/);
  assert.match(c[4], /^area_by_class\nimage: \$morphology\.mask/);
  assert.match(c[5], /^vectorize_mask\nimage: \$morphology\.mask/, 'after a table, the last mask');
});

test('burn severity and deforestation: a class map from the step before it, pairs of dates left to the data, a mask never taken for a class map', () => {
  const b = cells('burn_severity', { dnbr: { pre: '/ws/fire_pre.tif', post: '/ws/fire_post.tif' } });
  assert.match(b[1], /^dnbr\npre: fire_pre\.tif\npost: fire_post\.tif$/);
  assert.match(b[2], /^burn_severity\nimage: \$dnbr\.dnbr$/);
  assert.match(b[3], /^area_by_class\nimage: \$burn_severity\.severity/, 'the severity map, not the cloud mask');
  assert.match(b[4], /^quicklook\nimage: \$burn_severity\.severity/);
  const d = cells('deforestation', { change_difference: { before: '/ws/a_2018.tif', after: '/ws/a_2024.tif' } });
  assert.match(d[1], /^change_difference\nbefore: a_2018\.tif\nafter: a_2024\.tif$/);
  assert.match(d[2], /^morphology\nimage: \$change_difference\.change_mask/);
  assert.match(d[4], /^area_by_class\nimage: \$connected_patches\.labels/);
});

test('water quality: the mask input takes the threshold, the image to mask stays as the data gave it', () => {
  const c = cells('water_quality_screening', { apply_mask: { image: '/ws/s2.tif' } });
  assert.match(c[1], /^threshold\nimage: \$mndwi\.index/);
  assert.match(c[2], /^apply_mask\nimage: s2\.tif\nmask: \$threshold\.mask/);
  assert.match(c[4], /^raster_stats\nimage: \$ndci\.index/);
});
