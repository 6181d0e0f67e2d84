// Checks on artifacts a handler hands over as JS objects (IOHandler.load(),
// tf.io.fromMemory-style objects), made before they are serialized and copied
// into wasm memory: the C++ core checks them again, but a 10^5-deep object
// overflows JSON.stringify's stack and 1.5 GB of weightData exhausts wasm
// memory before it could say so. Same limits and words as io::LoadOptions.
import {GlintError, quoteForError} from './core.js';

/** io::LoadOptions::maxJsonDepth. */
export const MAX_JSON_DEPTH = 128;

const SOURCE = 'model artifacts';

/**
 * Throws when `value` nests arrays/objects deeper than maxDepth (the object
 * itself is level 1, as the top of model.json is). Iterative: any depth, and a
 * cycle, ends at the limit instead of overflowing the stack.
 */
export function checkJsonDepth(value, where, maxDepth = MAX_JSON_DEPTH, baseDepth = 1) {
  const stack = [[value, baseDepth, where]];
  while (stack.length) {
    const [v, depth, at] = stack.pop();
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
    if (depth > maxDepth) {
      throw new GlintError(`[io.load] ${SOURCE}: arrays/objects nested deeper than ${maxDepth} ` +
          `levels (LoadOptions.maxJsonDepth) at ${quoteForError(at)}`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; --i) stack.push([v[i], depth + 1, `${at}[${i}]`]);
    } else {
      for (const k of Object.keys(v)) stack.push([v[k], depth + 1, `${at}.${k}`]);
    }
  }
}

const BYTES_PER = {float32: 4, int32: 4, bool: 1};
const QUANTIZED_BYTES_PER = {uint8: 1, uint16: 2, float16: 2};

/**
 * The bytes weightSpecs describe, or null when a spec is malformed (the C++
 * core then names what is wrong with it before it reads any weight data).
 */
export function weightSpecsBytes(specs) {
  let total = 0;
  for (const s of specs) {
    if (!s || typeof s !== 'object' || !Array.isArray(s.shape)) return null;
    const per = s.quantization ? QUANTIZED_BYTES_PER[s.quantization?.dtype] : BYTES_PER[s.dtype];
    if (!per) return null;
    let n = per;
    for (const d of s.shape) {
      if (!Number.isInteger(d) || d < 0) return null;
      n *= d;
    }
    total += n;
  }
  return total;
}

/** Throws unless weightSpecs is a list and weightData is not larger than it describes. */
export function checkWeightData(weightSpecs, weightByteLength) {
  if (weightSpecs != null && !Array.isArray(weightSpecs)) {
    throw new GlintError(`[io.load] ${SOURCE}: the manifest's weights (weightSpecs) must be an ` +
        `array of weight entries, got ${quoteForError(JSON.stringify(weightSpecs) ?? typeof weightSpecs)}`);
  }
  const expected = weightSpecsBytes(weightSpecs ?? []);
  if (expected !== null && weightByteLength > expected) {
    throw new GlintError(`[io.load] ${SOURCE}: weight data is ${weightByteLength} bytes, more ` +
        `than the ${expected} bytes the weight specs describe`);
  }
  return expected;
}

/**
 * io::parseModelJson's depth check on JSON text, before JSON.parse (which
 * overflows the stack on deep nesting): one linear pass, strings skipped.
 */
export function checkJsonTextDepth(text, source, maxDepth = MAX_JSON_DEPTH) {
  let depth = 0, inString = false, escaped = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) {
        throw new GlintError(`[io.load] ${source}: arrays/objects nested deeper than ${maxDepth} ` +
            `levels (LoadOptions.maxJsonDepth) at character ${i}`);
      }
    } else if (c === 0x5d || c === 0x7d) {
      --depth;
    }
  }
}
