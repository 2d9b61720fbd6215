/**
 * Planet's product names say the band layout of a stacked scene whose bands carry no descriptions:
 * `…_3B_AnalyticMS_SR.tif` (and `_harmonized`, `_clip`) is PlanetScope's blue, green, red, NIR;
 * `…_AnalyticMS_SR_8b.tif` is SuperDove's coastal blue, blue, green I, green, yellow, red, red edge,
 * NIR; `…_3A_Analytic.tif` of five bands is RapidEye's blue, green, red, red edge, NIR;
 * `…_Visual.tif` of three is red, green, blue. The name is the product's own (Planet's delivery
 * specification), so the layout is read as a fact, not guessed from values: an 8-band uint16 stack is
 * also WorldView's, in another order, which no value range tells apart.
 */
import * as path from 'path';

export interface PlanetLayout {
  label: string;
  /** 1-based band of each role. */
  bands: Record<string, number>;
}

const LAYOUTS: { name: RegExp; count: number; layout: PlanetLayout }[] = [
  { name: /_analytic(ms)?(_sr)?_8b(_harmonized)?(_clip)?$/, count: 8, layout: { label: 'PlanetScope SuperDove 8-band', bands: { coastal: 1, blue: 2, green: 4, red: 6, rededge: 7, nir: 8 } } },
  { name: /_analytic(ms)?(_sr)?(_harmonized)?(_clip)?$/, count: 4, layout: { label: 'PlanetScope 4-band', bands: { blue: 1, green: 2, red: 3, nir: 4 } } },
  { name: /_3a_analytic(ms)?(_sr)?(_clip)?$/, count: 5, layout: { label: 'RapidEye', bands: { blue: 1, green: 2, red: 3, rededge: 4, nir: 5 } } },
  { name: /_visual(_clip)?$/, count: 3, layout: { label: 'Planet visual', bands: { red: 1, green: 2, blue: 3 } } },
];

/** The layout a Planet product name gives a file of `bandCount` bands; undefined for other names or counts. */
export function planetLayout(file: string, bandCount: number): PlanetLayout | undefined {
  const stem = path.basename(file).toLowerCase().replace(/\.(tiff?)$/, '');
  return LAYOUTS.find((l) => l.count === bandCount && l.name.test(stem))?.layout;
}
