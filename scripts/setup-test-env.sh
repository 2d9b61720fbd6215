#!/usr/bin/env bash
# Installs what the tests need beyond npm packages: GDAL (the reference for raster correctness
# and speed), nbformat (validates the Jupyter export), QGIS (opens the styles we write),
# libdeflate-dev, libopenjp2-7-dev and a C compiler (the raster engine's native DEFLATE and JPEG 2000
# addons, built by `npm ci`),
# Debian Chromium and code-server (the real VS Code for end-to-end tests).
# Idempotent: does nothing that is already there. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
need=()
# fonts-wqy-microhei: a CJK font, so the Chinese UI scenario's screenshots show characters, not boxes.
# python3-qgis: QGIS itself (headless PyQGIS, with its providers) opens the .qml styles we write
# (test/unit/qgis-styles.test.ts); about 220 packages, under two minutes to install.
# libhdfeos0, libhe5-hdfeos0: the HDF-EOS2 (HDF4) and HDF-EOS5 libraries the HDF readers' tests write their MODIS- and VIIRS-like files with (test/helpers/hdf4-writer.ts, he5-writer.ts).
# libeccodes-tools: ECMWF's ecCodes (grib_set, grib_filter, and its sample files) writes the GRIB reader's GRIB1, bitmap and relabelled test files (test/unit/raster-grib.test.ts).
for p in gdal-bin python3-gdal python3-numpy python3-nbformat libdeflate-dev libopenjp2-7-dev build-essential chromium libkrb5-dev ripgrep time fonts-wqy-microhei python3-qgis libhdfeos0 libhe5-hdfeos0 libeccodes-tools; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  echo "setup: installing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq
  # noninteractive: no debconf question may stop an unattended install (QGIS pulls ~220 packages)
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -x .e2e/code-server/node_modules/.bin/code-server ]; then
  echo "setup: installing code-server into .e2e/code-server"
  bash scripts/install-code-server.sh "$PWD/.e2e/code-server"
fi
echo "setup: test environment ready"
