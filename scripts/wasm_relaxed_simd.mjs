#!/usr/bin/env node
// Gives a WebAssembly binary built with -mrelaxed-simd by Debian's clang 14
// the relaxed-SIMD opcodes that browsers run.
//
// clang 14 knows relaxed SIMD only as the 2021 prototype: its fused
// multiply-add (__builtin_wasm_fma_f32x4) is encoded 0xfd 0xaf 0x01, which
// V8, SpiderMonkey and JavaScriptCore reject ("invalid simd opcode"); the
// standard's f32x4.relaxed_madd is 0xfd 0x85 0x02 (0x105). The operand order
// also changed: the prototype computed a + b * c, relaxed_madd computes
// a * b + c. Glint's source writes the standard's order (simd.h), which the
// compiler passes through untouched (the intrinsic is opaque to it), so only
// the opcode changes; both encodings take two bytes and nothing moves.
//
// Opcodes are found by decoding every instruction of every function body (a
// byte search could hit an immediate). Any other prototype relaxed opcode,
// or an instruction this decoder does not know, is an error: the output is
// either every fused multiply-add rewritten or nothing written.
//
// Usage: node scripts/wasm_relaxed_simd.mjs IN.wasm [OUT.wasm]   (OUT defaults to IN)
import fs from 'node:fs';

const PROTO_F32X4_FMA = 0xaf;
const RELAXED_MADD = 0x105;  // f32x4.relaxed_madd
// clang 14's other prototype relaxed opcodes (fms, laneselect, relaxed
// min/max, swizzle, trunc; listed with llvm-objdump from a file using every
// __builtin_wasm_ relaxed builtin): Glint never emits them; if one shows up the
// source changed and this script must learn its standard encoding first.
const PROTO_OTHERS = new Set([0xa2, 0xa5, 0xa6, 0xb0, 0xb2, 0xb3, 0xb4, 0xc5, 0xc6, 0xcf, 0xd0,
                              0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

class Reader {
  constructor(bytes, pos, end) { this.b = bytes; this.pos = pos; this.end = end; }
  byte() {
    if (this.pos >= this.end) throw new Error(`unexpected end at byte ${this.pos}`);
    return this.b[this.pos++];
  }
  u32() {
    let result = 0, shift = 0, byte;
    do {
      byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  sleb() {  // value not needed: skip a signed LEB of any width
    while (this.byte() & 0x80);
  }
  skip(n) {
    if (this.pos + n > this.end) throw new Error(`unexpected end at byte ${this.pos}`);
    this.pos += n;
  }
  memarg() { this.u32(); this.u32(); }
  blockType() {
    const b = this.b[this.pos];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) this.pos++;  // empty or a value type
    else this.sleb();                                          // a type index (s33)
  }
}

/** Decodes one instruction at r.pos; calls onSimd(opcode, position of its LEB) for 0xfd ones. */
function instruction(r, onSimd) {
  const op = r.byte();
  if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x19 ||
      op === 0x1a || op === 0x1b || op === 0xd1 || (op >= 0x45 && op <= 0xc4)) return;
  if (op >= 0x02 && op <= 0x04 || op === 0x06) return r.blockType();  // block loop if try
  if ([0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x18, 0xd2].includes(op) ||
      (op >= 0x20 && op <= 0x26)) return void r.u32();
  if (op === 0x3f || op === 0x40) return void r.u32();  // memory.size/grow: memory index
  if (op === 0x0e) {  // br_table
    for (let n = r.u32(); n > 0; --n) r.u32();
    return void r.u32();
  }
  if (op === 0x11 || op === 0x13) { r.u32(); return void r.u32(); }  // call_indirect
  if (op === 0x1c) return r.skip(r.u32());  // select with types (one byte each)
  if (op >= 0x28 && op <= 0x3e) return r.memarg();
  if (op === 0x41 || op === 0x42) return r.sleb();
  if (op === 0x43) return r.skip(4);
  if (op === 0x44) return r.skip(8);
  if (op === 0xd0) return r.skip(1);  // ref.null: heap type
  if (op === 0xfc) {
    const sub = r.u32();
    if (sub <= 7) return;  // saturating truncations
    if (sub === 8) { r.u32(); return void r.u32(); }  // memory.init
    if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) return void r.u32();
    if (sub === 10 || sub === 12 || sub === 14) { r.u32(); return void r.u32(); }
    throw new Error(`unknown 0xfc ${sub} at byte ${r.pos}`);
  }
  if (op === 0xfd) {
    const at = r.pos, sub = r.u32();
    onSimd(sub, at, r.pos - at);
    if (sub <= 11 || sub === 92 || sub === 93) return r.memarg();  // loads, stores
    if (sub === 12 || sub === 13) return r.skip(16);                // v128.const, shuffle
    if (sub >= 21 && sub <= 34) return r.skip(1);                   // lane index
    if (sub >= 84 && sub <= 91) { r.memarg(); return r.skip(1); }   // load/store lane
    return;  // every other SIMD instruction has no immediate
  }
  if (op === 0xfe) {  // threads
    const sub = r.u32();
    if (sub === 0x03) return r.skip(1);  // atomic.fence
    return r.memarg();
  }
  throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${r.pos - 1}`);
}

/** Rewrites the module's prototype f32x4.fma opcodes in place; returns how many. */
export function patchRelaxedSimd(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100)
    throw new Error('not a WebAssembly binary');
  const top = new Reader(bytes, 8, bytes.length);
  let patched = 0;
  while (top.pos < bytes.length) {
    const id = top.byte(), size = top.u32(), start = top.pos;
    if (id === 10) {  // code
      const r = new Reader(bytes, start, start + size);
      for (let n = r.u32(), f = 0; f < n; ++f) {
        const bodySize = r.u32(), bodyEnd = r.pos + bodySize;
        const body = new Reader(bytes, r.pos, bodyEnd);
        for (let groups = body.u32(); groups > 0; --groups) { body.u32(); body.skip(1); }
        while (body.pos < bodyEnd) {
          instruction(body, (sub, at, length) => {
            if (PROTO_OTHERS.has(sub))
              throw new Error(`function ${f}: prototype relaxed SIMD opcode 0x${sub.toString(16)} ` +
                              'has no rewrite here (only f32x4.fma does)');
            if (sub !== PROTO_F32X4_FMA) return;
            if (length !== 2) throw new Error(`function ${f}: f32x4.fma with a ${length}-byte opcode`);
            bytes[at] = 0x80 | (RELAXED_MADD & 0x7f);
            bytes[at + 1] = RELAXED_MADD >> 7;
            ++patched;
          });
        }
        if (body.pos !== bodyEnd || bytes[bodyEnd - 1] !== 0x0b)
          throw new Error(`function ${f}: body does not end where its size says`);
        r.pos = bodyEnd;
      }
    }
    top.pos = start + size;
  }
  return patched;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output = input] = process.argv.slice(2);
  if (!input) {
    console.error('usage: node scripts/wasm_relaxed_simd.mjs IN.wasm [OUT.wasm]');
    process.exit(2);
  }
  const bytes = fs.readFileSync(input);
  const n = patchRelaxedSimd(bytes);
  if (n === 0) {
    console.error(`wasm_relaxed_simd: ${input} has no f32x4.fma: was it built with -mrelaxed-simd?`);
    process.exit(1);
  }
  fs.writeFileSync(output + '.tmp', bytes);
  fs.renameSync(output + '.tmp', output);
  console.log(`wasm_relaxed_simd: ${n} f32x4.fma -> f32x4.relaxed_madd in ${output}`);
}
