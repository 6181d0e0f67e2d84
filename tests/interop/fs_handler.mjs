// A file-system IOHandler for TF.js in node (tfjs without tfjs-node has no
// file://): model.json plus weight shards, laid out as Glint and the TF.js
// converter write them.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';

export function fileHandler(dir, shardSizeBytes = 4 << 20) {
  return {
    async save(artifacts) {
      fs.mkdirSync(dir, {recursive: true});
      const data = new Uint8Array(tf.io.CompositeArrayBuffer.join(artifacts.weightData));
      const n = Math.max(1, Math.ceil(data.byteLength / shardSizeBytes));
      const paths = [];
      for (let i = 0; i < n; ++i) {
        const name = `group1-shard${i + 1}of${n}.bin`;
        fs.writeFileSync(path.join(dir, name), data.subarray(i * shardSizeBytes, (i + 1) * shardSizeBytes));
        paths.push(name);
      }
      const modelJson = {
        modelTopology: artifacts.modelTopology,
        format: artifacts.format,
        generatedBy: artifacts.generatedBy,
        convertedBy: artifacts.convertedBy,
        weightsManifest: [{paths, weights: artifacts.weightSpecs}],
      };
      if (artifacts.userDefinedMetadata != null) modelJson.userDefinedMetadata = artifacts.userDefinedMetadata;
      if (artifacts.trainingConfig != null) modelJson.trainingConfig = artifacts.trainingConfig;
      fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
      return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
    },
    async load() {
      const modelJson = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const specs = [];
        const buffers = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const p of group.paths) {
            const b = fs.readFileSync(path.join(dir, p));
            buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
          }
        }
        return [specs, tf.io.CompositeArrayBuffer.join(buffers)];
      });
    },
  };
}

// {"shape": [...], "data": [...]} as `glint predict` reads and writes it.
export function tensorToJson(t) {
  return {shape: t.shape, data: Array.from(t.dataSync())};
}
export function tensorFromJson(j) {
  return tf.tensor(j.data, j.shape, j.dtype);
}
