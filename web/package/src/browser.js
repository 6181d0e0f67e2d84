// tf.browser: images in and out of the page. fromPixels reads any image source
// the page has (ImageData, a {data, width, height} object, <img>, <canvas>,
// OffscreenCanvas, ImageBitmap, <video>) into an int32 [height, width,
// channels] tensor; toPixels writes a tensor back as RGBA bytes, and onto a
// canvas when given one; draw paints one onto a canvas at once.
import {GlintError} from './core.js';
import {Tensor, tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const fail = (message) => {
  throw new GlintError(`[browser.fromPixels] ${message}`);
};

const has = (name) => typeof globalThis[name] === 'function';
const isA = (x, name) => has(name) && x instanceof globalThis[name];

/** A canvas to draw an element on: OffscreenCanvas where there is one. */
let scratch = null;
function scratchContext(width, height) {
  if (!scratch) {
    if (has('OffscreenCanvas')) scratch = new OffscreenCanvas(width, height);
    else if (typeof document !== 'undefined') scratch = document.createElement('canvas');
    else fail('this environment has no canvas to read an image element with: pass ImageData or {data, width, height}');
  }
  scratch.width = width;
  scratch.height = height;
  return scratch.getContext('2d', {willReadFrequently: true});
}

/** The RGBA bytes and size of any supported source. */
function rgba(pixels) {
  if (pixels == null) fail('pixels is null or undefined');
  if (pixels instanceof Tensor) fail('pixels is a Tensor already');
  if (isA(pixels, 'ImageData') || (pixels.data && Number.isInteger(pixels.width) && Number.isInteger(pixels.height) &&
                                  !isA(pixels, 'HTMLElement'))) {
    const {data, width, height} = pixels;
    if (!(data instanceof Uint8Array || data instanceof Uint8ClampedArray))
      fail(`pixel data must be a Uint8Array or Uint8ClampedArray, got ${data?.constructor?.name}`);
    if (data.length !== width * height * 4)
      fail(`pixel data has ${data.length} bytes; ${width}x${height} RGBA needs ${width * height * 4}`);
    return {data, width, height};
  }
  let width, height;
  if (isA(pixels, 'HTMLVideoElement')) {
    if (pixels.readyState < 2)
      fail('the <video> has no frame yet (readyState < HAVE_CURRENT_DATA): wait for its \'loadeddata\' event');
    width = pixels.videoWidth;
    height = pixels.videoHeight;
  } else if (isA(pixels, 'HTMLImageElement')) {
    if (!pixels.complete) fail('the <img> has not finished loading: wait for its \'load\' event (or img.decode())');
    width = pixels.naturalWidth;
    height = pixels.naturalHeight;
  } else if (isA(pixels, 'HTMLCanvasElement') || isA(pixels, 'OffscreenCanvas') || isA(pixels, 'ImageBitmap')) {
    width = pixels.width;
    height = pixels.height;
  } else {
    fail('pixels must be ImageData, {data, width, height}, an <img>, <canvas>, <video>, OffscreenCanvas or ' +
         `ImageBitmap; got ${pixels?.constructor?.name ?? typeof pixels}`);
  }
  if (!(width > 0 && height > 0)) fail(`the image is ${width}x${height}: nothing to read`);
  const ctx = scratchContext(width, height);
  ctx.drawImage(pixels, 0, 0, width, height);
  return {data: ctx.getImageData(0, 0, width, height).data, width, height};
}

/** int32 [height, width, numChannels] (1: red, 3: RGB, 4: RGBA), as TF.js. */
export function fromPixels(pixels, numChannels = 3) {
  if (![1, 3, 4].includes(numChannels)) fail(`numChannels must be 1, 3 or 4, got ${numChannels}`);
  const {data, width, height} = rgba(pixels);
  const n = width * height;
  const out = new Int32Array(n * numChannels);
  for (let i = 0; i < n; ++i)
    for (let c = 0; c < numChannels; ++c) out[i * numChannels + c] = data[i * 4 + c];
  return tensor(out, [height, width, numChannels], 'int32');
}

export async function fromPixelsAsync(pixels, numChannels = 3) {
  return fromPixels(pixels, numChannels);
}

// The checks toPixels and draw share: [height, width] or [height, width,
// 1|3|4], float32 or int32 (numbers and arrays count as int32, as in TF.js).
function imageTensor(op, img) {
  const t = img instanceof Tensor ? img : tidy(() => ops.cast(asTensor(img, op, 'img'), 'int32'));
  const shape = t.shape;
  const fail = (msg) => {
    if (t !== img) t.dispose();
    throw new GlintError(`[browser.${op}] ${msg}`);
  };
  if (shape.length !== 2 && shape.length !== 3) fail(`img must be rank 2 or 3, got shape [${shape}]`);
  const depth = shape.length === 2 ? 1 : shape[2];
  if (![1, 3, 4].includes(depth)) fail(`img must have 1, 3 or 4 channels, got ${depth}`);
  if (t.dtype !== 'float32' && t.dtype !== 'int32') fail(`img must be float32 or int32, got ${t.dtype}`);
  return t;
}

// RGBA bytes of the image's values: float32 in [0, 1], int32 in [0, 255];
// 1 channel is grey; 3 channels take `alpha` (0 to 1) as their opacity.
function rgbaBytes(op, t, values, alpha = 1) {
  const [height, width] = t.shape;
  const depth = t.rank === 2 ? 1 : t.shape[2];
  const scale = t.dtype === 'float32' ? 255 : 1;
  const high = t.dtype === 'float32' ? 1 : 255;
  const bytes = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; ++i) {
    const rgbaOut = [0, 0, 0, 255 * alpha];
    for (let c = 0; c < depth; ++c) {
      const v = values[i * depth + c];
      if (!(v >= 0 && v <= high)) {
        throw new GlintError(`[browser.${op}] ${t.dtype} values must be in [0, ${high}], found ${v} at pixel ${i}`);
      }
      rgbaOut[c] = v * scale;
    }
    if (depth === 1) rgbaOut[1] = rgbaOut[2] = rgbaOut[0];
    for (let c = 0; c < 4; ++c) bytes[i * 4 + c] = Math.round(rgbaOut[c]);
  }
  return bytes;
}

function paint(canvas, bytes, width, height, contextType = '2d', contextAttributes = {}) {
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext(contextType, contextAttributes);
  if (ctx == null) throw new GlintError(`[browser.draw] the canvas gave no '${contextType}' context`);
  ctx.putImageData(new ImageData(bytes, width, height), 0, 0);
}

/**
 * RGBA bytes of a [height, width] or [height, width, 1|3|4] tensor: float32
 * values in [0, 1], int32 in [0, 255] (others are an error, as in TF.js).
 * Drawn onto `canvas` too when one is given.
 */
export async function toPixels(img, canvas) {
  const t = imageTensor('toPixels', img);
  try {
    const bytes = rgbaBytes('toPixels', t, await t.data());
    if (canvas != null) paint(canvas, bytes, t.shape[1], t.shape[0]);
    return bytes;
  } finally {
    if (t !== img) t.dispose();
  }
}

/**
 * Draws an image tensor onto a canvas at once (its values read
 * synchronously), as toPixels does: options {imageOptions: {alpha},
 * contextOptions: {contextType: '2d', contextAttributes}}.
 */
export function draw(image, canvas, options = {}) {
  const alpha = options?.imageOptions?.alpha ?? 1;
  if (!(alpha >= 0 && alpha <= 1)) throw new GlintError(`[browser.draw] imageOptions.alpha must be in [0, 1], got ${alpha}`);
  const contextType = options?.contextOptions?.contextType ?? '2d';
  if (contextType !== '2d') {
    throw new GlintError(`[browser.draw] contextOptions.contextType '${contextType}': glint-ml draws through a '2d' context`);
  }
  if (canvas == null || typeof canvas.getContext !== 'function') {
    throw new GlintError('[browser.draw] canvas must be a canvas (HTMLCanvasElement or OffscreenCanvas)');
  }
  const t = imageTensor('draw', image);
  try {
    paint(canvas, rgbaBytes('draw', t, t.dataSync(), alpha), t.shape[1], t.shape[0], contextType,
        options?.contextOptions?.contextAttributes ?? {});
  } finally {
    if (t !== image) t.dispose();
  }
}

export const browser = {fromPixels, fromPixelsAsync, toPixels, draw};
