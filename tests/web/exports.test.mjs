// TF.js 4.22's API surface against glint-ml's, in one run: the top level,
// Tensor and Variable members, and the namespaces programs use. A TF.js name
// glint-ml lacks must be on web/package/api_gaps.json with its reason; a name
// on that list that glint-ml has fails too, so the list stays true.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import {gapReason} from './shared_cases.mjs';

await glint.ready();
await tf.setBackend('cpu');

const gaps = JSON.parse(fs.readFileSync(new URL('../../web/package/api_gaps.json', import.meta.url), 'utf8'));
const CATEGORIES = ['needs a kernel', 'internal TF.js backend API', 'WebGL-specific', 'deprecated in TF.js',
  'internal TF.js Layers API', 'needs a Long type', 'needs engine support', 'not yet',
  'the ES-module default export'];

const NAMESPACES = ['layers', 'io', 'util', 'metrics', 'losses', 'data', 'image', 'browser', 'initializers',
  'regularizers', 'constraints', 'serialization', 'train', 'linalg', 'signal', 'spectral', 'sparse', 'string',
  'math', 'callbacks', 'models', 'fused'];

/** Every property of an object: own ones and those of its prototypes (methods, getters). */
function members(o) {
  const out = new Set(Object.keys(o));
  for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) out.add(n);
  }
  out.delete('constructor');
  return out;
}

// scope -> {theirs: [[name, value]], has(name)}
function scopes() {
  const t = tf.tensor([1, 2]), v = tf.variable(tf.tensor([1, 2]));
  const gt = glint.tensor([1, 2]), gv = glint.variable(glint.tensor([1, 2]));
  const tensorNames = members(t);
  const out = {
    top: {theirs: Object.keys(tf).map((k) => [k, tf[k]]), has: (k) => k in glint},
    Tensor: {theirs: [...tensorNames].map((k) => [k, undefined]), has: (k) => k in gt},
    Variable: {theirs: [...members(v)].filter((k) => !tensorNames.has(k)).map((k) => [k, undefined]),
      has: (k) => k in gv},
  };
  for (const ns of NAMESPACES) {
    out[ns] = {theirs: Object.keys(tf[ns]).map((k) => [k, tf[ns][k]]),
      has: (k) => glint[ns] != null && k in glint[ns]};
  }
  return out;
}

const excluded = (scope, name, value) => gapReason(gaps, scope, name, value);

const all = scopes();

test('every TF.js 4.22 name is in glint-ml or on api_gaps.json with a reason', () => {
  const missing = [];
  for (const [scope, {theirs, has}] of Object.entries(all)) {
    for (const [name, value] of theirs) {
      if (!has(name) && !excluded(scope, name, value)) missing.push(`${scope}.${name}`);
    }
  }
  assert.deepEqual(missing, [], `missing from glint-ml and not on web/package/api_gaps.json: ${missing.join(', ')}`);
});

test('api_gaps.json lists no name glint-ml has, and only names TF.js has', () => {
  const present = [], unknown = [];
  for (const [scope, names] of Object.entries(gaps.names)) {
    const s = all[scope];
    assert.ok(s, `api_gaps.json: unknown scope '${scope}'`);
    const theirs = new Set(s.theirs.map(([n]) => n));
    for (const name of Object.keys(names)) {
      if (s.has(name)) present.push(`${scope}.${name}`);
      if (!theirs.has(name)) unknown.push(`${scope}.${name}`);
    }
  }
  for (const g of gaps.groups) {
    const s = all[g.scope];
    assert.ok(s, `api_gaps.json: unknown group scope '${g.scope}'`);
    const matched = s.theirs.filter(([n, v]) => (g.names ? g.names.includes(n) :
        new RegExp(g.pattern).test(n) && (!g.valueType || typeof v === g.valueType)));
    assert.ok(matched.length > 0, `api_gaps.json: the group '${g.reason}' matches no TF.js name`);
    for (const [n] of matched) if (s.has(n)) present.push(`${g.scope}.${n} (group)`);
    for (const n of g.names ?? []) if (!matched.some(([m]) => m === n)) unknown.push(`${g.scope}.${n}`);
  }
  assert.deepEqual(present, [], `on api_gaps.json but present in glint-ml: ${present.join(', ')}`);
  assert.deepEqual(unknown, [], `on api_gaps.json but not a TF.js 4.22 name: ${unknown.join(', ')}`);
});

test('every exclusion gives a reason of a known category', () => {
  const reasons = [...gaps.groups.map((g) => [g.scope, g.reason]),
    ...Object.entries(gaps.names).flatMap(([s, names]) => Object.values(names).map((r) => [s, r]))];
  for (const [scope, r] of reasons) {
    assert.ok(typeof r === 'string' && CATEGORIES.some((c) => r.startsWith(c)),
              `api_gaps.json (${scope}): reason ${JSON.stringify(r)} does not start with one of ${CATEGORIES.join(' | ')}`);
  }
});

test('names glint-ml has are of the same kind as TF.js\'s (function, class or object)', () => {
  const wrong = [];
  for (const [scope, {theirs, has}] of Object.entries(all)) {
    if (scope === 'Tensor' || scope === 'Variable') continue;
    const ours = scope === 'top' ? glint : glint[scope];
    for (const [name, value] of theirs) {
      if (!has(name)) continue;
      const a = typeof value, b = typeof ours[name];
      const key = `${scope}.${name}`;
      if (a !== b && !(a === 'object' && value === null) && !gaps.kindDifferences[key]) {
        wrong.push(`${key}: TF.js ${a}, glint-ml ${b}`);
      }
    }
  }
  assert.deepEqual(wrong, [], `kinds differ (not on api_gaps.json's kindDifferences):\n${wrong.join('\n')}`);
  for (const key of Object.keys(gaps.kindDifferences)) {
    const [scope, name] = key.split('.');
    const ours = scope === 'top' ? glint : glint[scope];
    assert.notEqual(typeof ours[name], typeof (scope === 'top' ? tf : tf[scope])[name],
                    `api_gaps.json kindDifferences: ${key} no longer differs`);
  }
});
