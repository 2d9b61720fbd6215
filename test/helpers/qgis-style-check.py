"""Opens GeoWeave's raster outputs in a real QGIS (PyQGIS, headless) and reports what QGIS made of
the .qml beside each: the renderer it built, its colours and min/max, and how its rendering of the
raster at native size compares with GeoWeave's quicklook PNG of the same file.

usage: python3 qgis-style-check.py CASES.json RENDER_DIR  (CASES: [{"name", "tif", "png"}])
prints JSON: one report per case.
"""
import json
import os
import sys

import numpy as np

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
if not os.environ.get('XDG_RUNTIME_DIR'):
    run = os.path.join(sys.argv[2], '.xdg')
    os.makedirs(run, mode=0o700, exist_ok=True)
    os.environ['XDG_RUNTIME_DIR'] = run

from qgis.core import (QgsApplication, QgsColorRampShader, QgsContrastEnhancement,  # noqa: E402
                       QgsMapRendererSequentialJob, QgsMapSettings, QgsRasterLayer, QgsRasterMinMaxOrigin)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor, QImage  # noqa: E402

STRETCH = {QgsContrastEnhancement.StretchToMinimumMaximum: 'StretchToMinimumMaximum',
           QgsContrastEnhancement.NoEnhancement: 'NoEnhancement',
           QgsContrastEnhancement.StretchAndClipToMinimumMaximum: 'StretchAndClipToMinimumMaximum',
           QgsContrastEnhancement.ClipToMinimumMaximum: 'ClipToMinimumMaximum'}


def renderer_report(r):
    out = {'type': r.type(), 'minMaxLimits': None}
    if hasattr(r, 'minMaxOrigin'):
        out['minMaxLimits'] = QgsRasterMinMaxOrigin.limitsString(r.minMaxOrigin().limits())
    if r.type() == 'singlebandpseudocolor':
        fn = r.shader().rasterShaderFunction()
        out.update(band=r.band(), min=r.classificationMin(), max=r.classificationMax(),
                   shaderMin=fn.minimumValue(), shaderMax=fn.maximumValue(), clip=fn.clip(),
                   interpolated=fn.colorRampType() == fn.Interpolated,
                   items=[{'value': i.value, 'color': i.color.name()} for i in fn.colorRampItemList()],
                   sourceRamp=fn.sourceColorRamp() is not None, reclassified=reclassified(fn))
    elif r.type() == 'paletted':
        out.update(band=r.band(), classes=[{'value': c.value, 'color': c.color.name(), 'label': c.label} for c in r.classes()])
    elif r.type() == 'multibandcolor':
        enh = [r.redContrastEnhancement(), r.greenContrastEnhancement(), r.blueContrastEnhancement()]
        out.update(bands=[r.redBand(), r.greenBand(), r.blueBand()],
                   stretch=[None if e is None else {'min': e.minimumValue(), 'max': e.maximumValue(),
                                                     'algorithm': STRETCH.get(e.contrastEnhancementAlgorithm(), '?')} for e in enh])
    return out


def reclassified(fn):
    """The colours QGIS gives the ramp when the analyst changes min/max in the layer properties: it
    classifies again from the style's source ramp (None without one: QGIS then takes its default ramp)."""
    ramp = fn.sourceColorRamp()
    if ramp is None:
        return None
    again = QgsColorRampShader(fn.minimumValue(), fn.maximumValue(), ramp.clone(), QgsColorRampShader.Interpolated, QgsColorRampShader.Continuous)
    again.classifyColorRamp(len(fn.colorRampItemList()), -1)
    return [i.color.name() for i in again.colorRampItemList()]


def render(layer, path):
    """The layer drawn at its own size over its own extent: one image pixel per raster pixel."""
    s = QgsMapSettings()
    s.setLayers([layer])
    s.setDestinationCrs(layer.crs())
    s.setExtent(layer.extent())
    s.setOutputSize(QSize(layer.width(), layer.height()))
    s.setBackgroundColor(QColor(0, 0, 0, 0))
    job = QgsMapRendererSequentialJob(s)
    job.start()
    job.waitForFinished()
    img = job.renderedImage().convertToFormat(QImage.Format_ARGB32)
    img.save(path)
    return img


def pixels(img):
    """An ARGB32 image as an h x w x 4 array of B, G, R, A bytes (little-endian ARGB32)."""
    img = img.convertToFormat(QImage.Format_ARGB32)
    ptr = img.constBits()
    ptr.setsize(img.sizeInBytes())
    return np.frombuffer(ptr, np.uint8).reshape(img.height(), img.bytesPerLine())[:, :img.width() * 4].reshape(img.height(), img.width(), 4).astype(int)


def compare(img, png_path):
    """QGIS's image against the quicklook's image area (below a 16-pixel title, centred on a canvas
    at least 320 wide): pixels whose transparency differs, and the largest colour difference where
    both are opaque."""
    w, h = img.width(), img.height()
    q = QImage(png_path)
    ox = (max(w, 320) - w) // 2
    if q.width() < ox + w or q.height() < 16 + h:
        return {'problem': 'quicklook %dx%d smaller than the raster %dx%d' % (q.width(), q.height(), w, h)}
    a = pixels(img)
    b = pixels(q)[16:16 + h, ox:ox + w]
    ta, tb = a[:, :, 3] == 0, b[:, :, 3] == 0
    both = ~ta & ~tb
    worst = int(np.abs(a[:, :, :3] - b[:, :, :3])[both].max()) if both.any() else 0
    return {'alphaDiffers': int((ta != tb).sum()), 'opaque': int(both.sum()), 'transparent': int((ta & tb).sum()), 'maxColourDiff': worst}


def main():
    cases = json.load(open(sys.argv[1]))
    out_dir = sys.argv[2]
    app = QgsApplication([], False)
    app.initQgis()
    reports = []
    for c in cases:
        # As QGIS opens a file: the style named like it (<name>.qml) is loaded by itself.
        layer = QgsRasterLayer(c['tif'], c['name'], 'gdal')
        rep = {'name': c['name'], 'valid': layer.isValid()}
        if layer.isValid():
            msg, ok = layer.loadDefaultStyle()
            rep.update(defaultStyleLoaded=bool(ok), styleMessage=msg, renderer=renderer_report(layer.renderer()))
            rendered = os.path.join(out_dir, c['name'] + '.qgis.png')
            img = render(layer, rendered)
            rep.update(rendered=rendered, width=img.width(), height=img.height(), compare=compare(img, c['png']))
        reports.append(rep)
    print(json.dumps(reports))
    sys.stdout.flush()
    # Tearing QGIS down with Python still holding layers and images can abort ("double free") after
    # the work is done; the process ends here instead, its report written.
    os._exit(0)


main()
