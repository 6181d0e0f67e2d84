// tf.browser: images in and out of the page. fromPixels reads any image source
// the page has (ImageData, a {data, width, height} object, <img>, <canvas>,
// OffscreenCanvas, ImageBitmap, <video>) into an int32 [height, width,
// channels] tensor; toPixels writes a tensor back as RGBA bytes, and onto a
// canvas when given one.
import {GlintError} from './core.js';
import {Tensor, tensor} from './tensor.js';

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

/**
 * RGBA bytes of a [height, width] or [height, width, 1|3|4] tensor: float32
 * values in [0, 1], int32 in [0, 255] (others are an error, as in TF.js).
 * Drawn onto `canvas` too when one is given.
 */
export async function toPixels(img, canvas) {
  const op = '[browser.toPixels]';
  if (!(img instanceof Tensor)) throw new GlintError(`${op} img must be a Tensor`);
  const shape = img.shape;
  if (shape.length !== 2 && shape.length !== 3)
    throw new GlintError(`${op} img must be rank 2 or 3, got shape [${shape}]`);
  const [height, width] = shape;
  const depth = shape.length === 2 ? 1 : shape[2];
  if (![1, 3, 4].includes(depth)) throw new GlintError(`${op} img must have 1, 3 or 4 channels, got ${depth}`);
  if (img.dtype !== 'float32' && img.dtype !== 'int32')
    throw new GlintError(`${op} img must be float32 or int32, got ${img.dtype}`);
  const values = await img.data();
  const scale = img.dtype === 'float32' ? 255 : 1;
  const high = img.dtype === 'float32' ? 1 : 255;
  const bytes = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; ++i) {
    const rgbaOut = [0, 0, 0, 255];
    for (let c = 0; c < depth; ++c) {
      const v = values[i * depth + c];
      if (!(v >= 0 && v <= high))
        throw new GlintError(`${op} ${img.dtype} values must be in [0, ${high}], found ${v} at pixel ${i}`);
      rgbaOut[c] = Math.round(v * scale);
    }
    if (depth === 1) rgbaOut[1] = rgbaOut[2] = rgbaOut[0];
    bytes.set(rgbaOut, i * 4);
  }
  if (canvas != null) {
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d');
    ctx.putImageData(new ImageData(bytes, width, height), 0, 0);
  }
  return bytes;
}

export const browser = {fromPixels, fromPixelsAsync, toPixels};
