// fit's divergence guard, for both JS fit loops (model.fit, fitDataset), as
// the C++ fit loop has it: each step's loss is already read back, so
// checking it costs nothing; views of the weights (no copy: a variable's
// next assignment swaps its buffer) keep the weights of the last step whose
// loss was finite. A non-finite loss puts those back and stops training
// with an error, so a caller that saves after catching it saves no NaN.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, dispose} from './tensor.js';

export class DivergenceGuard {
  constructor(model, op) {
    this.model = model;
    this.op = op;
    this.lastFinite = null;
    this.before = null;
  }

  _views() {
    return core.callIds(4096, (out, max) => core.module()._glint_layer_weight_views(
        this.model.id, out, max)).map((id) => new Tensor(id));
  }

  /** Before a training step. */
  beforeStep() {
    if (this.before) dispose(this.before);
    this.before = this._views();
  }

  /** After it, with its logs; epoch and batch count from 1 as the log does. */
  afterStep(logs, epoch, batch) {
    const loss = logs?.loss;
    if (typeof loss === 'number' && !Number.isFinite(loss)) {
      const back = this.lastFinite ?? this.before;
      this.model.setWeights(back);
      const what = Number.isNaN(loss) ? 'nan' : loss > 0 ? 'inf' : '-inf';
      throw new GlintError(`[${this.op}] training diverged at epoch ${epoch} batch ${batch}: ` +
          `loss is ${what}; the weights are ${this.lastFinite ? 'those of the last finite step' :
            'those from before training'} (a lower learning rate, or scaled inputs, may help)`);
    }
    if (this.lastFinite) dispose(this.lastFinite);
    this.lastFinite = this.before;
    this.before = null;
  }

  release() {
    if (this.lastFinite) dispose(this.lastFinite);
    if (this.before) dispose(this.before);
    this.lastFinite = this.before = null;
  }
}
