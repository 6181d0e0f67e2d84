// Compiled (not run) by make test-web: the declarations cover what the README shows.
import * as glint from '../../web/package/index';
async function main() {
  await glint.ready();
  const t = glint.tensor([1, 2, 3]);
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  m.compile({optimizer: glint.train.adam(), loss: 'meanSquaredError'});
  const h = await m.fit(t.reshape([1, 3]), glint.zeros([1, 2]), {epochs: 1});
  console.log(h.history.loss, glint.tidy(() => t.add(1)).dataSync());
  // The measured backend choice and GPU timing (issue 23).
  const cal: glint.Calibration = await m.calibrateBackend(t.reshape([1, 3]), glint.zeros([1, 2]),
                                                        {candidates: ['cpu'], warmup: 1, runs: 2});
  const info = glint.backendInfo();
  console.log(cal.timings[0].msPerStep, cal.chosen, info.calibrated, info.calibration?.what,
              info.chosenAutomatically, info.calibrationCandidates.length);
  await m.fit(t.reshape([1, 3]), glint.zeros([1, 2]), {calibrate: false});
  if (glint.webgpu.startKernelTiming()) {
    for (const r of await glint.webgpu.stopKernelTiming()) console.log(r.kernel, r.calls, r.totalMs, r.meanUs);
  }
  // What TF.js programs call (tests/programs): callbacks, util, in-memory handlers.
  await m.fit(t.reshape([1, 3]), glint.zeros([1, 2]), {
    callbacks: [glint.callbacks.earlyStopping({monitor: 'loss', patience: 2}),
                new glint.CustomCallback({onEpochEnd: (epoch) => console.log(epoch)})]});
  let saved: glint.ModelArtifacts | undefined;
  await m.save(glint.io.withSaveHandler(async (a) => {
    saved = a;
  }));
  if (saved) await glint.loadLayersModel(glint.io.fromMemory(saved));
  const order = glint.util.createShuffledIndices(glint.util.sizeFromShape([2, 3]));
  glint.util.shuffle(order);
  glint.oneHot(glint.tensor1d([0, 1], 'int32'), 2, 1, 0, 'float32');
  glint.layers.dense({units: 2, kernelInitializer: glint.initializers.heNormal({seed: 1}),
                      kernelRegularizer: glint.regularizers.l2({l2: 0.01}),
                      kernelConstraint: glint.constraints.maxNorm({maxValue: 2})});
  (await glint.whereAsync(glint.tensor([true, false]))).print();
  glint.math.confusionMatrix(glint.tensor1d([0, 1], 'int32'), glint.tensor1d([1, 1], 'int32'), 2).print();
  glint.cumsum(glint.norm(glint.linspace(0, 1, 5), 'euclidean', 0, true)).print();
  const square = glint.customGrad((x: glint.Tensor, save: (ts: glint.Tensor[]) => void) => {
    save([x]);
    return {value: x.square(), gradFunc: (dy: glint.Tensor, saved: glint.Tensor[]) => [dy.mul(saved[0]).mul(2)]};
  });
  glint.grad((x) => square(x).sum())(glint.tensor1d([1, 2])).print();
  class Scale extends glint.layers.Layer {
    w: glint.LayerVariable | null = null;
    build(inputShape: Array<number | null> | Array<number | null>[]) {
      this.w = this.addWeight('w', [1], 'float32', glint.initializers.ones());
    }
    call(inputs: glint.Tensor | glint.Tensor[]) {
      const x = Array.isArray(inputs) ? inputs[0] : inputs;
      return x.mul(this.w!.read());
    }
    static get className() {
      return 'Scale';
    }
  }
  glint.serialization.registerClass(Scale);
  glint.sequential({layers: [new Scale({inputShape: [2]})]});
  const g = await glint.loadGraphModel('models/blazeface/model.json');
  const y = g.predict(t) as glint.Tensor;
  const mid = await g.executeAsync({[g.inputNodes[0]]: t}, ['conv1', 'out:1']);
  console.log(g.inputs[0].shape, g.outputs[0].dtype, y.shape, mid, g.execute(t, 'conv1'));
  g.dispose();
  // TF.js names composed in JS (tests/web/added_ops.test.mjs checks their values).
  const b = glint.buffer([2, 2]);
  b.set(3, 1, 0);
  b.toTensor().as4D(1, 2, 2, 1).toInt().print();
  glint.depthToSpace(glint.ones([1, 1, 1, 4]), 2).print();
  glint.mirrorPad(glint.ones([2, 2]), [[1, 1], [0, 1]], 'reflect').print();
  const {values, indices} = glint.unique(glint.tensor1d([1, 1, 2], 'int32'));
  glint.dispose([values, indices]);
  const [kept] = await glint.setdiff1dAsync(glint.tensor1d([1, 2, 3]), glint.tensor1d([2]));
  (await glint.inTopKAsync(glint.ones([2, 3]), glint.tensor1d([0, 2], 'int32'), 1)).print();
  kept.print();
  const opt: glint.Optimizer = new glint.AdamOptimizer(0.01, 0.9, 0.999);
  opt.dispose();
  const {data, specs} = await glint.io.encodeWeights({w: glint.ones([2])});
  glint.io.decodeWeights(data, specs).w.print();
  glint.util.squeezeShape([1, 2, 1]).newShape.forEach((d) => console.log(d));
  glint.linalg.bandPart(glint.ones([3, 3]), 1, 0).print();
  glint.signal.frame(glint.linspace(0, 1, 8), 3, 2).print();
  // An audio program's spectrogram: stft, magnitudes, back to a signal.
  const spec = glint.signal.stft(glint.linspace(-1, 1, 64), 16, 8, 16, glint.signal.hammingWindow);
  glint.abs(spec).print();
  const c = glint.complex(glint.real(spec), glint.imag(spec));
  if (c.dtype === 'complex64') glint.irfft(c).print();
  glint.spectral.ifft(glint.fft(c)).print();
  c.rfft === undefined || glint.real(c.fft()).print();
  // Text: a vocabulary's hash buckets and word bigrams.
  const words = glint.string.stringSplit(['the cat sat', 'on the mat'], ' ');
  glint.string.stringToHashBucketFast(words.values, 1000).print();
  const {nGrams} = glint.string.stringNGrams(words.values, [0, 3, 6], ' ', [2], '<s>', '</s>', 1, false);
  if (nGrams.dtype === 'string') glint.string.staticRegexReplace(nGrams, 'the', 'a').print();
  glint.equal(glint.tensor(['a', 'b']), glint.scalar('a')).print();
  const hist = new glint.History();
  const list = new glint.CallbackList([hist]);
  await list.onTrainBegin();
  if (glint.env().getBool('IS_NODE')) glint.enableProdMode();
  glint.searchSorted(glint.tensor1d([1, 2, 3]), glint.tensor1d([2.5]), 'right').print();

  // A JS RNN cell in tf.layers.rnn, a stateful layer, and disposeVariables.
  class Tanh extends glint.layers.RNNCell {
    constructor(config: {units: number}) {
      super(config);
      this.stateSize = config.units;
    }
    call(inputs: glint.Tensor | glint.Tensor[]): glint.Tensor[] {
      const [x, h] = inputs as glint.Tensor[];
      const out = glint.tanh(glint.add(glint.sum(x, -1, true), h));
      return [out, out];
    }
  }
  const recurrent: glint.RNN = glint.layers.rnn({cell: [new Tanh({units: 2}), glint.layers.lstmCell({units: 3})],
    stateful: true, batchInputShape: [1, 4, 2]});
  const seqModel = glint.sequential({layers: [recurrent]});
  seqModel.predict(glint.zeros([1, 4, 2]));
  if (recurrent.stateful) seqModel.resetStates();
  const rnnStates: Array<glint.Tensor | null> = recurrent.states;
  console.log(rnnStates.length, recurrent.returnSequences, recurrent.cell.name);
  class MyRNN extends glint.RNN {}
  console.log(MyRNN.name, glint.layers.RNN === glint.RNN);
  glint.disposeVariables();
  glint.registerOp('MyAsyncOp', async (node) => glint.relu(node.inputs[0]));
  glint.deregisterOp('MyAsyncOp');
  const hash = glint.util.fingerPrint64(new Uint8Array([1, 2, 3]));
  console.log(hash.toString(16), glint.util.hexToLong('ff').add(hash).unsigned);

  // Strict declarations (scripts/gen_types.mjs): chained ops keep their op's
  // parameter types, namespaces list their members, and a name glint-ml lacks
  // is a compile error rather than `any`.
  const x = glint.tensor([[-1, 2], [3, -4]]);
  const chained: glint.Tensor = x.leakyRelu(0.1).clipByValue(-1, 1).cumsum(0).logSumExp(1, true);
  const parts: glint.Tensor[] = x.split(2, 1);
  const viaOps: glint.Tensor = glint.ops.add(x, 1);
  const loss: glint.Tensor = glint.losses.categoricalCrossentropy(x, x);
  const metric: glint.Tensor = glint.metrics.binaryAccuracy(x, x);
  const embed = glint.layers.embedding({inputDim: 10, outputDim: 4});
  const bits: bigint = glint.util.hexToLong('ff').shiftLeft(4).toBigInt();
  // @ts-expect-error: tensors have no such method
  x.noSuchMethod();
  // @ts-expect-error: leakyRelu's alpha is a number
  x.leakyRelu('0.1');
  // @ts-expect-error: glint.losses has no such loss
  glint.losses.noSuchLoss(x, x);
  // @ts-expect-error: glint.layers has no such factory
  glint.layers.noSuchLayer({});
  console.log(chained, parts, viaOps, loss, metric, embed, bits);
}
main();

// glint.worker(): the same API with every call a Promise (RemoteApi).
async function workerMode() {
  const g = await glint.worker();
  const model = await g.sequential({layers: [await g.layers.dense({units: 1, inputShape: [1]})]});
  await model.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
  const xs = g.tensor2d([1, 2, 3, 4], [4, 1]), ys = g.tensor2d([1, 3, 5, 7], [4, 1]);
  const h = await model.fit(xs, ys, {epochs: 5, callbacks: {onEpochEnd: (e, logs) => console.log(e, logs?.loss)}});
  const losses: number[] = h.history.loss;
  // Pipelined: the tensor's method is called before the tensor arrives.
  const values = await g.tensor([1, 2]).square().data();
  const first: number = values[0];
  const shape: number[] = await xs.shape;
  const weights: glint.Remote<glint.Tensor>[] = await model.getWeights();
  // @ts-expect-error: the API has no such function
  g.noSuchFunction();
  // @ts-expect-error: epochs is a number
  await model.fit(xs, ys, {epochs: 'five'});
  // @ts-expect-error: data() gives numbers, not a string
  const text: string = await g.tensor([1]).data();
  console.log(losses, first, shape, weights, text);
  g.terminate();
}
workerMode();
