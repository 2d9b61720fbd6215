/**
 * Band roles from wavelengths, for imaging spectrometers whose bands are named by wavelength, not by
 * role (an ENVI cube's "Band 54 (667.1 Nanometers)", or "0.6671 Micrometers"): each role takes the
 * one band nearest its centre, within a window around it, the centres being Sentinel-2 MSI's
 * (red 665 nm, NIR 842 nm, SWIR 1610 and 2190 nm…). Used only where at least two bands carry a
 * wavelength and a band's own name says no role.
 */

/** Centre and half-window of each role, nm. */
const ROLES: [string, number, number][] = [
  ['coastal', 443, 15], ['blue', 490, 30], ['green', 560, 30], ['red', 665, 30], ['rededge', 705, 15],
  ['nir', 842, 60], ['swir1', 1610, 80], ['swir2', 2190, 100],
];

/** A description's wavelength in nm: "name (667.1 Nanometers)", "667.1 nm", "0.6671 Micrometers", or a bare number (µm below 5). */
export function wavelengthNm(desc: string | null | undefined): number | undefined {
  if (!desc) return undefined;
  const m = /(?:^|\()\s*(\d+(?:\.\d+)?)\s*(nanometers?|nm|micrometers?|microns?|µm|um)?\s*\)?\s*$/i.exec(desc.trim());
  if (!m) return undefined;
  const v = Number(m[1]);
  const unit = m[2]?.toLowerCase();
  const nm = unit ? (unit.startsWith('n') ? v : v * 1000) : v < 5 ? v * 1000 : v;
  return nm >= 300 && nm <= 15000 ? nm : undefined;
}

/** 1-based band → role for the bands nearest each role's centre (only when two or more bands carry a wavelength). */
export function wavelengthRoles(descriptions: readonly (string | null)[]): Map<number, string> {
  const wl = descriptions.map(wavelengthNm);
  const out = new Map<number, string>();
  if (wl.filter((w) => w !== undefined).length < 2) return out;
  for (const [role, centre, half] of ROLES) {
    let best = -1;
    wl.forEach((w, i) => {
      if (w !== undefined && Math.abs(w - centre) <= half && !out.has(i + 1) && (best < 0 || Math.abs(w - centre) < Math.abs(wl[best]! - centre))) best = i;
    });
    if (best >= 0) out.set(best + 1, role);
  }
  return out;
}
