// Writes the layer classes TF.js 4.22 registers for deserialization (those
// its model.json files can name) as a JSON list, for
// IoInterop.EveryTfjsLayerClassIsKnownAndDocumented.
// Usage: node tfjs_layer_classes.mjs OUT_FILE
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node tfjs_layer_classes.mjs OUT_FILE');
const map = tf.serialization.SerializationMap.getMap().classNameMap;
const names = Object.entries(map)
    .filter(([, [cls]]) => cls.prototype instanceof tf.layers.Layer)
    .map(([name]) => name)
    .sort();
if (names.length < 50) throw new Error(`tfjs_layer_classes: only ${names.length} layer classes found`);
fs.mkdirSync(path.dirname(out), {recursive: true});
fs.writeFileSync(out, JSON.stringify(names));
console.log(`tfjs_layer_classes: ${names.length} TF.js layer classes`);
