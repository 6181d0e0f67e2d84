// glint-ml's entry in node (the "node" export condition): the same API as
// src/index.js, with node's file system ready for io.fileSystem and the wasm.
import './node_platform.js';

export * from './index.js';
