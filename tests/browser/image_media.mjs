#!/usr/bin/env node
// tf.browser, tf.image and tf.data.webcam / microphone in Debian's headless
// Chromium, against TF.js 4.22 loaded in the same page: fromPixels from
// ImageData, a canvas, an <img> and a <video> (Chromium's fake camera);
// toPixels back onto a canvas; the tf.image ops on the same pixels; webcam
// frames (resized and centre-cropped) and microphone spectrograms (Chromium's
// fake microphone: a beep) with TF.js's shapes and dtypes. Bad sources get
// named errors. Needs `make web-st`. Last line: "N passed, N failed".
import {check, openPage, runMain, withBrowser} from './harness.mjs';

const FAKE_MEDIA = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream',
                    '--autoplay-policy=no-user-gesture-required'];

runMain(() => withBrowser(async ({base, context}) => {
  const {page} = await openPage(context, `${base}/tests/browser/pages/api.html?threads=0`,
                                        {viewport: null, echoPageErrors: true});
  await page.waitForFunction(() => window.glintReady || window.glintReadyError, null, {timeout: 60000});
  const readyError = await page.evaluate(() => window.glintReadyError);
  if (readyError) throw new Error(`glint.ready failed: ${readyError}`);
  await page.addScriptTag({url: '/node_modules/@tensorflow/tfjs/dist/tf.es2017.js'});
  await page.evaluate(() => window.tf.setBackend('cpu'));

  // A 13x9 canvas with a gradient and shapes: fromPixels from each kind of source.
  const pixels = await page.evaluate(async () => {
    const {glint, tf} = window;
    const c = document.createElement('canvas');
    c.width = 13;
    c.height = 9;
    const ctx = c.getContext('2d');
    const g = ctx.createLinearGradient(0, 0, 13, 9);
    g.addColorStop(0, '#13a0f0');
    g.addColorStop(1, '#f0302a');
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, 13, 9);
    ctx.fillStyle = 'rgba(20, 200, 60, 0.7)';
    ctx.fillRect(3, 2, 5, 4);
    const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
    const out = {};
    const imageData = ctx.getImageData(0, 0, 13, 9);
    for (const channels of [1, 3, 4]) {
      const mine = glint.browser.fromPixels(imageData, channels);
      const theirs = tf.browser.fromPixels(imageData, channels);
      out[`imageData${channels}`] = same(Array.from(await mine.data()), Array.from(await theirs.data())) &&
          same(mine.shape, theirs.shape) && mine.dtype === theirs.dtype;
    }
    out.canvas = same(Array.from(await glint.browser.fromPixels(c).data()),
                      Array.from(await tf.browser.fromPixels(c).data()));
    const img = new Image();
    img.src = c.toDataURL('image/png');
    await img.decode();
    out.img = same(Array.from(await glint.browser.fromPixels(img, 4).data()),
                   Array.from(await tf.browser.fromPixels(img, 4).data()));
    out.plain = same(Array.from(await glint.browser.fromPixels({data: new Uint8Array(imageData.data), width: 13, height: 9}).data()),
                     Array.from(await tf.browser.fromPixels(imageData).data()));

    // toPixels: float [0,1] and int [0,255], 1/3/4 channels, onto a canvas.
    const f = glint.div(glint.cast(glint.browser.fromPixels(imageData, 3), 'float32'), 255);
    const back = document.createElement('canvas');
    const bytesMine = await glint.browser.toPixels(f, back);
    const bytesTheirs = await tf.browser.toPixels(tf.div(tf.browser.fromPixels(imageData, 3).toFloat(), 255));
    out.toPixels = same(Array.from(bytesMine), Array.from(bytesTheirs)) && back.width === 13 && back.height === 9 &&
        same(Array.from(back.getContext('2d').getImageData(0, 0, 13, 9).data), Array.from(bytesTheirs));
    const gray = glint.browser.fromPixels(imageData, 1);
    out.toPixelsGray = same(Array.from(await glint.browser.toPixels(gray)),
                            Array.from(await tf.browser.toPixels(tf.browser.fromPixels(imageData, 1))));

    // tf.image on these pixels, against TF.js.
    const close = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= 1e-3 * Math.max(1, Math.abs(b[i])));
    const x = glint.expandDims(glint.cast(glint.browser.fromPixels(imageData, 3), 'float32'), 0);
    const tx = tf.browser.fromPixels(imageData, 3).toFloat().expandDims(0);
    const cmp = async (a, b) => same(a.shape, b.shape) && close(Array.from(await a.data()), Array.from(await b.data()));
    out.resizeBilinear = await cmp(glint.image.resizeBilinear(x, [5, 17]), tf.image.resizeBilinear(tx, [5, 17]));
    out.resizeBilinearHalf = await cmp(glint.image.resizeBilinear(x, [4, 6], false, true),
                                       tf.image.resizeBilinear(tx, [4, 6], false, true));
    out.resizeNearest = await cmp(glint.image.resizeNearestNeighbor(x, [7, 3], true),
                                  tf.image.resizeNearestNeighbor(tx, [7, 3], true));
    const boxes = [[0.1, 0.2, 0.7, 0.9], [-0.1, 0, 0.5, 1.2]];
    out.cropAndResize = await cmp(glint.image.cropAndResize(x, boxes, [0, 0], [4, 5]),
                                  tf.image.cropAndResize(tx, tf.tensor2d(boxes), tf.tensor1d([0, 0], 'int32'), [4, 5]));
    out.flip = await cmp(glint.image.flipLeftRight(x), tf.image.flipLeftRight(tx));
    out.gray = await cmp(glint.image.rgbToGrayscale(x), tf.image.rgbToGrayscale(tx));
    const nb = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]];
    const ns = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
    out.nms = await cmp(glint.image.nonMaxSuppression(glint.tensor2d(nb), glint.tensor1d(ns), 3, 0.5),
                        tf.image.nonMaxSuppression(tf.tensor2d(nb), tf.tensor1d(ns), 3, 0.5));

    // Errors that name the function and the problem.
    const message = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.message; } };
    out.errors = [
      message(() => glint.browser.fromPixels(null)),
      message(() => glint.browser.fromPixels(imageData, 2)),
      message(() => glint.browser.fromPixels({data: new Uint8Array(10), width: 13, height: 9})),
      message(() => glint.browser.fromPixels(document.createElement('video'))),
    ];
    out.toPixelsError = await glint.browser.toPixels(glint.tensor2d([[2]])).then(() => 'no error', (e) => e.message);
    return out;
  });
  for (const [name, ok] of Object.entries(pixels)) {
    if (name === 'errors' || name === 'toPixelsError') continue;
    check(`${name}: same values, shape and dtype as TF.js`, ok === true);
  }
  const [nullErr, channelsErr, sizeErr, videoErr] = pixels.errors;
  check('fromPixels(null) names the argument', /fromPixels.*null/.test(nullErr), nullErr);
  check('fromPixels with 2 channels names numChannels', /numChannels must be 1, 3 or 4, got 2/.test(channelsErr), channelsErr);
  check('fromPixels with short data says the sizes', /10 bytes; 13x9 RGBA needs 468/.test(sizeErr), sizeErr);
  check('fromPixels of a <video> with no frame says to wait for loadeddata', /loadeddata/.test(videoErr), videoErr);
  check('toPixels of a float above 1 names the range', /\[0, 1\].*found 2/.test(pixels.toPixelsError), pixels.toPixelsError);
  // Transfer learning in a worker: a graph model as a frozen feature
  // extractor, a head trained with fit there, saved to IndexedDB and reloaded.
  const transfer = await page.evaluate(async () => {
    const {glint} = window;
    const url = '/node_modules/@vladmandic/human/models/blazeface.json';
    const topology = await (await fetch(url)).json();
    const node = topology.modelTopology.node.filter((n) => n.op === '_FusedConv2D').at(-1).name;
    const images = Array.from({length: 4}, (_, k) =>
      Array.from({length: 256 * 256 * 3}, (_, i) => ((i * (7919 + 13 * k)) % 997) / 997));
    // On the page: the features the worker must reproduce.
    const gm = await glint.loadGraphModel(url);
    const pageFeats = images.map((v) => Array.from(glint.mean(gm.execute(glint.tensor(v, [1, 256, 256, 3]), node), [1, 2]).dataSync()));
    const g = await glint.worker();
    const wm = await g.loadGraphModel(url);
    const rows = [];
    for (const v of images) {
      const f = await wm.execute(await g.tensor(v, [1, 256, 256, 3]), node);
      rows.push(Array.from(await (await g.mean(f, [1, 2])).data()));
    }
    const featDiff = Math.max(...rows.flatMap((r, i) => r.map((x, j) => Math.abs(x - pageFeats[i][j]))));
    const xs = await g.tensor(rows.flat(), [rows.length, rows[0].length]);
    const ys = await g.oneHot(await g.tensor([0, 1, 1, 0], [4], 'int32'), 2);
    const head = await g.sequential({layers: [
      await g.layers.dense({units: 4, activation: 'relu', inputShape: [rows[0].length]}),
      await g.layers.dense({units: 2, activation: 'softmax'})]});
    await head.compile({optimizer: await g.train.adam(0.05), loss: 'categoricalCrossentropy'});
    const h = await head.fit(xs, ys, {epochs: 40, batchSize: 4});
    await head.save('indexeddb://glint-transfer-head');
    const before = Array.from(await (await head.predict(xs)).data());
    g.terminate();
    const back = await glint.loadLayersModel('indexeddb://glint-transfer-head');
    const after = Array.from(back.predict(glint.tensor(rows.flat(), [rows.length, rows[0].length])).dataSync());
    return {featDiff, first: h.history.loss[0], last: h.history.loss.at(-1),
            reloadDiff: Math.max(...after.map((v, i) => Math.abs(v - before[i])))};
  });
  check('worker: graph-model features equal the page\'s', transfer.featDiff <= 1e-5, String(transfer.featDiff));
  // Nearly alike images give nearly alike features: the head fits them slowly
  // (tests/web/graph_model.test.mjs compares its training with TF.js's).
  check('worker: the head learns (loss falls by a fifth)', transfer.last < 0.8 * transfer.first,
        `${transfer.first} -> ${transfer.last}`);
  check('worker: the head saved to IndexedDB reloads on the page, same predictions', transfer.reloadDiff <= 1e-6,
        String(transfer.reloadDiff));
}).then(() => withBrowser(async ({base, context}) => {
  const {page} = await openPage(context, `${base}/tests/browser/pages/api.html?threads=0`,
                                {viewport: null, echoPageErrors: true});
  await page.waitForFunction(() => window.glintReady || window.glintReadyError, null, {timeout: 60000});
  const media = await page.evaluate(async () => {
    const {glint} = window;
    const out = {};
    const video = document.createElement('video');
    video.width = 160;
    video.height = 120;
    document.body.append(video);
    const cam = await glint.data.webcam(video);
    const frame = await cam.capture();
    out.frame = {shape: frame.shape, dtype: frame.dtype, max: (await glint.max(frame).data())[0]};
    const fromVideo = glint.browser.fromPixels(video);
    out.fromVideo = {shape: fromVideo.shape};
    const it = await cam.next();
    out.next = {done: it.done, shape: it.value.shape};
    cam.stop();
    out.afterStop = await cam.next();
    const resized = await glint.data.webcam(null, {resizeWidth: 64, resizeHeight: 32, centerCrop: true});
    const small = await resized.capture();
    out.cropped = {shape: small.shape, dtype: small.dtype};
    resized.stop();
    const mic = await glint.data.microphone({fftSize: 512, numFramesPerSpectrogram: 6, columnTruncateLength: 100,
                                             includeWaveform: true, sampleRateHz: 48000});
    const sound = await mic.capture();
    out.mic = {spectrogram: sound.spectrogram.shape, waveform: sound.waveform.shape,
               // dB values; silence between the fake microphone's beeps is -Infinity
               noNaN: !(await sound.spectrogram.data()).some(Number.isNaN) &&
                   !(await sound.waveform.data()).some(Number.isNaN)};
    mic.stop();
    out.badMic = await glint.data.microphone({fftSize: 1000}).then(() => 'no error', (e) => e.message);
    out.badCam = await glint.data.webcam(null, {}).then(() => 'no error', (e) => e.message);
    return out;
  });
  check('webcam capture: int32 [120, 160, 3] frames of the fake camera',
        JSON.stringify(media.frame.shape) === '[120,160,3]' && media.frame.dtype === 'int32' && media.frame.max > 0,
        JSON.stringify(media.frame));
  check('fromPixels(<video>) reads the playing camera', JSON.stringify(media.fromVideo.shape) === '[120,160,3]',
        JSON.stringify(media.fromVideo));
  check('webcam is an async iterator (next)', media.next.done === false && media.next.shape.length === 3);
  check('webcam after stop(): done', media.afterStop.done === true);
  check('webcam resized and centre-cropped: float32 [32, 64, 3]',
        JSON.stringify(media.cropped.shape) === '[32,64,3]' && media.cropped.dtype === 'float32', JSON.stringify(media.cropped));
  check('microphone: spectrogram [6, 100, 1], waveform [3072, 1], no NaN',
        JSON.stringify(media.mic.spectrogram) === '[6,100,1]' && JSON.stringify(media.mic.waveform) === '[3072,1]' &&
        media.mic.noNaN, JSON.stringify(media.mic));
  check('microphone fftSize not a power of 2: named error', /fftSize must be a power of 2/.test(media.badMic), media.badMic);
  check('webcam with no element and no size: named error', /resizeWidth and resizeHeight/.test(media.badCam), media.badCam);
}, FAKE_MEDIA)));
