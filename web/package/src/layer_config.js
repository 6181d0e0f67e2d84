// tf.initializers, tf.regularizers and tf.constraints: TF.js programs pass these
// objects as layer arguments (kernelInitializer: tf.initializers.heNormal({seed: 1})).
// Each is its Keras config ({className, config}), which is what the engine reads.
import {GlintError} from './core.js';

// TF.js writes enum values in camelCase (mode: 'fanAvg'); the engine reads Keras's.
const snake = (v) => (typeof v === 'string' ? v.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()) : v);

class ConfigObject {
  constructor(kind, className, config) {
    this.className = className;
    this.config = config;
    Object.defineProperty(this, 'kind', {value: kind, enumerable: false});
  }
  getClassName() {
    return this.className;
  }
  getConfig() {
    return {...this.config};
  }
}

function checkArgs(kind, name, args, allowed) {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object') throw new GlintError(`[${kind}.${name}] expects an object of arguments`);
  for (const k of Object.keys(args)) {
    if (!allowed.includes(k)) {
      throw new GlintError(`[${kind}.${name}] unknown argument '${k}'; it takes ${allowed.join(', ') || 'none'}`);
    }
  }
  return args;
}

function initializer(name, className, allowed, toConfig = (a) => a) {
  return (args) => new ConfigObject('initializer', className,
      toConfig(checkArgs('initializers', name, args, allowed)));
}

export const initializers = {
  zeros: initializer('zeros', 'Zeros', []),
  ones: initializer('ones', 'Ones', []),
  constant: initializer('constant', 'Constant', ['value']),
  randomNormal: initializer('randomNormal', 'RandomNormal', ['mean', 'stddev', 'seed']),
  randomUniform: initializer('randomUniform', 'RandomUniform', ['minval', 'maxval', 'seed']),
  truncatedNormal: initializer('truncatedNormal', 'TruncatedNormal', ['mean', 'stddev', 'seed']),
  varianceScaling: initializer('varianceScaling', 'VarianceScaling',
      ['scale', 'mode', 'distribution', 'seed'],
      (a) => ({...a, ...(a.mode ? {mode: snake(a.mode)} : {}),
        ...(a.distribution ? {distribution: snake(a.distribution)} : {})})),
  glorotUniform: initializer('glorotUniform', 'GlorotUniform', ['seed']),
  glorotNormal: initializer('glorotNormal', 'GlorotNormal', ['seed']),
  heUniform: initializer('heUniform', 'HeUniform', ['seed']),
  heNormal: initializer('heNormal', 'HeNormal', ['seed']),
  leCunUniform: initializer('leCunUniform', 'LeCunUniform', ['seed']),
  leCunNormal: initializer('leCunNormal', 'LeCunNormal', ['seed']),
  orthogonal: initializer('orthogonal', 'Orthogonal', ['gain', 'seed']),
  identity: initializer('identity', 'Identity', ['gain']),
};

function l1l2Object(name, args, defaults) {
  const a = checkArgs('regularizers', name, args, ['l1', 'l2']);
  return new ConfigObject('regularizer', 'L1L2', {l1: a.l1 ?? defaults.l1, l2: a.l2 ?? defaults.l2});
}

export const regularizers = {
  l1: (args) => l1l2Object('l1', args, {l1: 0.01, l2: 0}),
  l2: (args) => l1l2Object('l2', args, {l1: 0, l2: 0.01}),
  l1l2: (args) => l1l2Object('l1l2', args, {l1: 0.01, l2: 0.01}),
};

function constraint(name, className, allowed) {
  return (args) => {
    const a = checkArgs('constraints', name, args, allowed);
    const config = {};
    for (const [k, v] of Object.entries(a)) config[snake(k)] = v;
    return new ConfigObject('constraint', className, config);
  };
}

export const constraints = {
  maxNorm: constraint('maxNorm', 'MaxNorm', ['maxValue', 'axis']),
  minMaxNorm: constraint('minMaxNorm', 'MinMaxNorm', ['minValue', 'maxValue', 'axis', 'rate']),
  nonNeg: constraint('nonNeg', 'NonNeg', []),
  unitNorm: constraint('unitNorm', 'UnitNorm', ['axis']),
};
