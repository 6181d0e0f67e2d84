// glint-ml's entry in node (the "node" export condition): the same API as
// src/index.js, with node's file system ready for io.fileSystem and the wasm,
// and the engine started by the first op when nothing awaited ready() (TF.js
// programs never need to).
import './node_platform.js';
import {setSyncStart} from './core.js';
import {instantiateSync} from './module.js';

setSyncStart(() => instantiateSync());

export * from './index.js';
