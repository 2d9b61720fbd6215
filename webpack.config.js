// Bundles the extension into dist/extension.js (plus the raster engine's worker, which the engine
// looks up next to itself as pixel-worker.js and strip-worker.js, and the fit's step-model-worker.js and bag-worker.js). Native addons and heavy ESM packages stay external:
// hnswlib-node ships in node_modules; transformers.js gets its own bundle (third config below).
// A second config bundles the notebook result renderer (with OpenLayers and proj4) into dist/result-renderer.js.
'use strict';
const fs = require('fs');
const path = require('path');
const webpack = require('webpack');

// The transformers embedder's runtime goes into dist/node_modules/, the first place the core's
// loader (src/core/embed/transformers.ts) looks when it walks up from dist/extension.js. It is built
// for the platform that runs the build; `npm run package` marks the vsix with the same target.
const RUNTIME = 'node_modules';
const PLATFORM = `${process.platform}/${process.arch}`;

const tsRule = {
  test: /\.ts$/,
  exclude: /node_modules/,
  // Type checking is tsc's job (npm run build); the bundle only transpiles.
  use: { loader: 'ts-loader', options: { transpileOnly: true, compilerOptions: { sourceMap: true } } },
};

/** @type {import('webpack').Configuration} */
const extension = {
  name: 'extension',
  target: 'node20',
  mode: 'none',
  entry: {
    extension: './src/extension/extension.ts',
    'pixel-worker': './src/core/raster/pipeline/pixel-worker.ts',
    // Strip runs (slope, aspect, hillshade, reclassify, clip, resample) look for it next to the bundle too;
    // without it they run inline.
    'strip-worker': './src/core/raster/pipeline/strip-worker.ts',
    // JPEG 2000 tiles decode on its threads (io/jp2/decode-pool.ts looks for it next to the bundle); without it, inline.
    'jp2-worker': './src/core/raster/io/jp2/jp2-worker.ts',
    // A fusion fit trains its folds' next-step models on it (learning/step-model-pool.ts looks for it next to the bundle); without it, inline.
    'step-model-worker': './src/core/learning/step-model-worker.ts',
    // …and half of its bootstrap fits (fusion/bag-thread.ts); without it, inline.
    'bag-worker': './src/core/fusion/bag-worker.ts',
  },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    library: { type: 'commonjs2' },
    devtoolModuleFilenameTemplate: '../[resource-path]',
    // The renderer and transformers bundles (below) land in the same folder; clean must keep them.
    clean: { keep: /^(result-renderer\.js(\.LICENSE\.txt)?|node_modules[\\/])/ },
  },
  externals: {
    vscode: 'commonjs vscode',
    'hnswlib-node': 'commonjs hnswlib-node',
    'better-sqlite3': 'commonjs better-sqlite3',
    '@huggingface/transformers': 'commonjs @huggingface/transformers',
    'onnxruntime-node': 'commonjs onnxruntime-node',
    // OpenJPEG as WebAssembly: Emscripten's loader finds its .wasm next to itself in node_modules.
    '@cornerstonejs/codec-openjpeg/decodewasmjs': 'commonjs @cornerstonejs/codec-openjpeg/decodewasmjs',
    // h5wasm (NetCDF-4/HDF5) needs no entry: it is an ES module that io/netcdf4.ts imports at run time
    // from node_modules by a path webpack does not see (.vscodeignore ships its Node build).
  },
  resolve: {
    extensions: ['.ts', '.js', '.json'],
    conditionNames: ['node', 'require', 'default'],
    mainFields: ['main', 'module'],
  },
  module: { rules: [tsRule] },
  // Keep __dirname real so the bundle finds tool-manifests/ and pixel-worker.js next to it.
  node: { __dirname: false, __filename: false },
  plugins: [
    new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
    // Marks when the bundle starts loading, so the activation time includes module evaluation.
    new webpack.BannerPlugin({ banner: 'var __geoweaveLoadStart = performance.now();', raw: true, entryOnly: true, test: /^extension\.js$/ }),
  ],
  devtool: 'nosources-source-map',
  performance: { hints: false },
  // geotiff's worker pool (unused: the engine has its own workers) resolves its worker by expression.
  ignoreWarnings: [{ module: /node_modules[\\/]web-worker/ }],
  infrastructureLogging: { level: 'warn' },
};

// The notebook renderer for tool results runs in the output webview: a browser ES module that
// VS Code imports and calls activate() on.
/** @type {import('webpack').Configuration} */
const renderer = {
  name: 'renderer',
  dependencies: ['extension'],
  target: ['web', 'es2020'],
  mode: 'none',
  entry: { 'result-renderer': './src/extension/renderer/result-renderer.ts' },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    library: { type: 'module' },
    module: true,
    clean: false,
  },
  experiments: { outputModule: true },
  resolve: { extensions: ['.ts', '.js'] },
  module: { rules: [{ ...tsRule, use: { loader: 'ts-loader', options: { transpileOnly: true, configFile: path.resolve(__dirname, 'src/extension/renderer/tsconfig.json'), compilerOptions: { noEmit: false } } } }] },
  // OpenLayers and proj4 are bundled in (minified; their licences go to result-renderer.js.LICENSE.txt).
  optimization: { minimize: true },
  devtool: false,
  performance: { hints: false },
  infrastructureLogging: { level: 'warn' },
};

/** Folder of an installed package (some do not export their package.json to require.resolve). */
const packageDir = (pkg) => path.join(__dirname, 'node_modules', ...pkg.split('/'));

/** Emits files of an installed package under `to`, keeping those `keep(relativePath)` accepts. */
class CopyPackageFiles {
  constructor(pkg, to, keep) { this.pkg = pkg; this.to = to; this.keep = keep; }
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('CopyPackageFiles', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'CopyPackageFiles', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        const root = packageDir(this.pkg);
        const walk = (rel) => {
          for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
            const r = rel ? `${rel}/${e.name}` : e.name;
            if (e.isDirectory()) walk(r);
            else if (this.keep(r)) compilation.emitAsset(`${this.to}/${r}`, new webpack.sources.RawSource(fs.readFileSync(path.join(root, r))));
          }
        };
        walk('');
      });
    });
  }
}

/** Emits a package.json for a rebundled package, so a bare import of it resolves to the bundle. */
class PackageJson {
  constructor(pkg, entry, note) { this.pkg = pkg; this.entry = entry; this.note = note; }
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('PackageJson', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'PackageJson', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        const up = JSON.parse(fs.readFileSync(path.join(packageDir(this.pkg), 'package.json'), 'utf8'));
        const json = { name: up.name, version: up.version, description: `${up.name} ${up.version}, ${this.note}`, license: up.license, type: 'module', exports: this.entry, main: this.entry };
        compilation.emitAsset(`${this.pkg}/package.json`, new webpack.sources.RawSource(JSON.stringify(json, null, 2) + '\n'));
      });
    });
  }
}

const licence = (r) => /^(LICEN[CS]E|NOTICE|ThirdPartyNotices)[^/]*$/i.test(r);
const scripts = (r) => /\.[cm]?js$/.test(r);

// transformers.js for Node as one ES module, loaded only when the "transformers" embedder is chosen.
// Its own Node build imports sharp (image inputs only) at load time: a stub stands in for it.
// onnxruntime-node (a native addon, required at run time) and onnxruntime-common stay real packages,
// copied next to the bundle with only this platform's onnxruntime binaries (linux/x64: ~45 MB of
// the ~288 MB npm package).
/** @type {import('webpack').Configuration} */
const transformers = {
  name: 'transformers',
  dependencies: ['extension'],
  target: ['node20', 'es2022'],
  mode: 'none',
  entry: { transformers: '@huggingface/transformers' },
  output: {
    path: path.resolve(__dirname, 'dist', RUNTIME),
    filename: '@huggingface/transformers/dist/transformers.node.mjs',
    library: { type: 'module' },
    module: true,
    chunkFormat: 'module',
    // Owns dist/node_modules: no binaries of another platform or version stay behind.
    clean: true,
  },
  experiments: { outputModule: true },
  externalsType: 'module',
  externalsPresets: { node: true },
  externals: { 'onnxruntime-common': 'onnxruntime-common', 'onnxruntime-node': 'node-commonjs onnxruntime-node' },
  resolve: { conditionNames: ['node', 'import', 'default'], alias: { sharp: path.resolve(__dirname, 'src/extension/sharp-stub.mjs') } },
  module: {
    parser: {
      // The bundle is already built for Node: leave import.meta.url, new URL(), new Worker() and
      // createRequire() as they are, so onnxruntime-node resolves from the installed location.
      javascript: { importMeta: false, url: false, worker: false, createRequire: false, exprContextCritical: false },
    },
  },
  optimization: { minimize: false },
  plugins: [
    new CopyPackageFiles('@huggingface/transformers', '@huggingface/transformers', licence),
    new PackageJson('@huggingface/transformers', './dist/transformers.node.mjs', 'rebundled by GeoWeave for Node without sharp (text only)'),
    new CopyPackageFiles('onnxruntime-common', 'onnxruntime-common', (r) => /(^|\/)package\.json$/.test(r) || licence(r) || (/^dist\/(cjs|esm)\//.test(r) && scripts(r))),
    new CopyPackageFiles('onnxruntime-node', 'onnxruntime-node', (r) => r === 'package.json' || licence(r)
      || (/^dist\//.test(r) && scripts(r)) || r.startsWith(`bin/napi-v6/${PLATFORM}/`)),
  ],
  devtool: false,
  performance: { hints: false },
  infrastructureLogging: { level: 'warn' },
};

module.exports = [extension, renderer, transformers];
