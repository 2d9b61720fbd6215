// Stands in for `sharp` in the packaged transformers.js bundle (webpack.config.js). transformers.js
// imports sharp at load time and refuses to load when it is falsy, but only image inputs call it;
// GeoWeave embeds text, so the ~19 MB native image library is not shipped.
export default function sharp() {
  throw new Error('image inputs are not supported in GeoWeave: its transformers.js bundle ships without sharp (text embeddings do not need it)');
}
