// tf.buffer / TensorBuffer: a mutable host-side array with a shape, written
// element by element and then turned into a tensor (as TF.js's).
import {GlintError} from './core.js';
import {tensor} from './tensor.js';
import {computeStrides, locToIndex, indexToLoc, getArrayFromDType} from './util_more.js';

export class TensorBuffer {
  constructor(shape, dtype = 'float32', values) {
    this.dtype = dtype;
    this.shape = shape.slice();
    this.size = shape.reduce((n, d) => n * d, 1);
    if (values != null) {
      if (values.length !== this.size) {
        throw new GlintError(`[TensorBuffer] length of values (${values.length}) does not match the size ` +
            `inferred by the shape [${shape}] (${this.size})`);
      }
      this.values = values;
    } else {
      this.values = getArrayFromDType(dtype, this.size);
    }
    this.strides = computeStrides(shape);
  }

  get rank() {
    return this.shape.length;
  }

  _checkLocs(locs) {
    if (locs.length !== this.rank) {
      throw new GlintError(`[TensorBuffer] expected ${this.rank} indices for shape [${this.shape}]: got ` +
          `${locs.length}`);
    }
    locs.forEach((l, i) => {
      if (!Number.isInteger(l) || l < 0 || l >= this.shape[i]) {
        throw new GlintError(`[TensorBuffer] index ${i} is ${l}: must be an integer in [0, ${this.shape[i]}) ` +
            `for shape [${this.shape}]`);
      }
    });
  }

  /** Sets the element at locs (one index per dimension; none for a scalar). */
  set(value, ...locs) {
    if (locs.length === 0) locs = [0];
    if (this.rank === 0 && locs.length === 1 && locs[0] === 0) {
      this.values[0] = value;
      return;
    }
    this._checkLocs(locs);
    this.values[this.locToIndex(locs)] = value;
  }

  get(...locs) {
    if (locs.length === 0) locs = [0];
    if (this.rank === 0 && locs.length === 1 && locs[0] === 0) return this.values[0];
    this._checkLocs(locs);
    return this.values[this.locToIndex(locs)];
  }

  locToIndex(locs) {
    return locToIndex(locs, this.rank, this.strides);
  }

  indexToLoc(index) {
    return indexToLoc(index, this.rank, this.strides);
  }

  toTensor() {
    return tensor(this.values, this.shape, this.dtype);
  }
}

/** tf.buffer(shape, dtype = 'float32', values?). */
export function buffer(shape, dtype = 'float32', values) {
  return new TensorBuffer(shape, dtype, values);
}
