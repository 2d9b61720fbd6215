// Bundles the extension into dist/extension.js (plus the raster engine's worker, which the engine
// looks up next to itself as pixel-worker.js). Native addons and heavy ESM packages stay external
// and are either shipped in node_modules (hnswlib-node) or optional (transformers, onnxruntime).
// A second config bundles the notebook result renderer into dist/result-renderer.js.
'use strict';
const path = require('path');
const webpack = require('webpack');

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
  },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    library: { type: 'commonjs2' },
    devtoolModuleFilenameTemplate: '../[resource-path]',
    // The renderer bundle (below) lands in the same folder; clean must not remove it.
    clean: { keep: /^result-renderer\.js/ },
  },
  externals: {
    vscode: 'commonjs vscode',
    'hnswlib-node': 'commonjs hnswlib-node',
    '@huggingface/transformers': 'commonjs @huggingface/transformers',
    'onnxruntime-node': 'commonjs onnxruntime-node',
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
  entry: { 'result-renderer': './src/extension/renderer/result-renderer.js' },
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    library: { type: 'module' },
    module: true,
    clean: false,
  },
  experiments: { outputModule: true },
  resolve: { extensions: ['.ts', '.js'] },
  module: { rules: [tsRule] },
  devtool: false,
  performance: { hints: false },
  infrastructureLogging: { level: 'warn' },
};

module.exports = [extension, renderer];
