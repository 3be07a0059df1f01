/** The package's public surface; JupyterLab loads `plugin` and `mime` through package.json. */

export { default as plugins } from './plugin';
export { default as mimeExtension, RunRenderer } from './mime';
export { renderRun } from './render';
export { MIME_TYPE, SCHEMA_VERSION } from './schema';
