// glint-ml's entry in pages and workers (the "browser" and "default" export
// conditions): the API of src/index.js, started without ready() as TF.js
// programs expect. The first op starts the single-thread engine
// synchronously if nothing started it yet; otherwise the engine starts with
// ready()'s defaults once the importing module's first turn is over. A
// ready({...}) called before either chooses how instead. 'glint-ml/lazy'
// (src/index.js) starts nothing until ready().
// (Imported for its effects too: Vite 8's worker bundles (rolldown, IIFE)
// otherwise never run index.js, reached only through `export *`.)
import './index.js';
import {setSyncStart, startSoon} from './core.js';
import {instantiateSync} from './module.js';

setSyncStart(() => instantiateSync());
startSoon();

export * from './index.js';
