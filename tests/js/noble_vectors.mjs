// Generates seeded random test vectors with @noble/curves, an implementation independent of
// snarkd, for tests/ec/noble_vectors_test.cc to compare against.
//
//   node noble_vectors.mjs --out FILE [--seed N]
//
// The seed defaults to a fresh random value and is written into the output so a failing run can
// be replayed (SNARKD_TEST_SEED=N ctest ...). All integers are decimal strings; byte strings hex.
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';

function parseArgs(argv) {
  const args = { out: null, seed: null };
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === '--out') args.out = argv[++i];
    else if (argv[i] === '--seed') args.seed = BigInt(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!args.out) throw new Error('--out FILE is required');
  if (args.seed === null) {
    args.seed = process.env.SNARKD_TEST_SEED
      ? BigInt(process.env.SNARKD_TEST_SEED)
      : BigInt('0x' + randomBytes(8).toString('hex'));
  }
  return args;
}

// splitmix64: small, seedable, good enough to pick test inputs.
function makeRng(seed) {
  let state = seed & 0xffffffffffffffffn;
  const next64 = () => {
    state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return z ^ (z >> 31n);
  };
  const below = (m) => {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 64n) | next64();
    return v % m;
  };
  return { next64, below };
}

const dec = (v) => v.toString();
const fp2 = (v) => [dec(v.c0), dec(v.c1)];
const fp6 = (v) => [...fp2(v.c0), ...fp2(v.c1), ...fp2(v.c2)];
const fp12 = (v) => [...fp6(v.c0), ...fp6(v.c1)];

function fieldVectors(F, rng, count) {
  const p = F.ORDER;
  const half = (p - 1n) / 2n;
  const inputs = [0n, 1n, 2n, p - 1n, p - 2n, half, half + 1n];
  while (inputs.length < count) inputs.push(rng.below(p));
  return inputs.map((a) => {
    const b = rng.below(p);
    const e = rng.below(1n << 256n);
    const legendre = a === 0n ? 0 : F.pow(a, half) === 1n ? 1 : -1;
    return {
      a: dec(a), b: dec(b), e: dec(e),
      add: dec(F.add(a, b)), sub: dec(F.sub(a, b)), mul: dec(F.mul(a, b)),
      sqr: dec(F.sqr(a)), neg: dec(F.neg(a)),
      inv: a === 0n ? null : dec(F.inv(a)),
      pow: dec(F.pow(a, e)),
      legendre,
      sqrt: legendre >= 0 ? dec(F.sqrt(a)) : null,
    };
  });
}

function towerVectors(fields, rng, count) {
  const { Fp, Fp2, Fp6, Fp12 } = fields;
  const p = Fp.ORDER;
  const r2 = () => Fp2.fromBigTuple([rng.below(p), rng.below(p)]);
  const r6 = () => Fp6.create({ c0: r2(), c1: r2(), c2: r2() });
  const r12 = () => Fp12.create({ c0: r6(), c1: r6() });
  const out = { fp2: [], fp6: [], fp12: [] };
  for (let i = 0; i < count; i++) {
    const a = r2(), b = r2();
    const sq = Fp2.sqr(a);
    out.fp2.push({
      a: fp2(a), b: fp2(b), mul: fp2(Fp2.mul(a, b)), sqr: fp2(sq), inv: fp2(Fp2.inv(a)),
      frob: fp2(Fp2.frobeniusMap(a, 1)), square_of_a: fp2(sq), sqrt_of_square: fp2(Fp2.sqrt(sq)),
      mul_by_nonresidue: fp2(Fp2.mul(a, Fp2.NONRESIDUE)),
    });
  }
  for (let i = 0; i < count; i++) {
    const a = r6(), b = r6();
    out.fp6.push({
      a: fp6(a), b: fp6(b), mul: fp6(Fp6.mul(a, b)), sqr: fp6(Fp6.sqr(a)), inv: fp6(Fp6.inv(a)),
      frob1: fp6(Fp6.frobeniusMap(a, 1)), frob2: fp6(Fp6.frobeniusMap(a, 2)),
    });
  }
  for (let i = 0; i < count; i++) {
    const a = r12(), b = r12();
    out.fp12.push({
      a: fp12(a), b: fp12(b), mul: fp12(Fp12.mul(a, b)), sqr: fp12(Fp12.sqr(a)),
      inv: fp12(Fp12.inv(a)), conj: fp12(Fp12.conjugate(a)),
      frob1: fp12(Fp12.frobeniusMap(a, 1)), frob2: fp12(Fp12.frobeniusMap(a, 2)),
      frob3: fp12(Fp12.frobeniusMap(a, 3)),
      final_exp: fp12(Fp12.finalExponentiate(a)),
    });
  }
  return out;
}

function groupVectors(curve, group, rng, count, coords, withZcash) {
  const Point = curve[group].Point;
  const n = curve.fields.Fr.ORDER;
  const out = [];
  const scalars = [1n, 2n, 3n, n - 1n];
  while (scalars.length < count) scalars.push(rng.below(n - 1n) + 1n);
  for (const k of scalars) {
    const k2 = rng.below(n - 1n) + 1n;
    const P = Point.BASE.multiply(k);
    const Q = Point.BASE.multiply(k2);
    const k3 = rng.below(n);
    const entry = {
      k: dec(k), k2: dec(k2), k3: dec(k3),
      kG: coords(P.toAffine()), k2G: coords(Q.toAffine()),
      sum: coords(P.add(Q).toAffine()), double: coords(P.double().toAffine()),
      k3_times_kG: P.multiplyUnsafe(k3).is0() ? null : coords(P.multiplyUnsafe(k3).toAffine()),
    };
    if (withZcash) {
      entry.compressed = P.toHex(true);
      entry.uncompressed = P.toHex(false);
      entry.neg_compressed = P.negate().toHex(true);
    }
    out.push(entry);
  }
  return out;
}

function pairingVectors(curve, rng, count) {
  const { G1, G2, fields } = curve;
  const n = fields.Fr.ORDER;
  const g1 = (v) => [dec(v.x), dec(v.y)];
  const g2 = (v) => [...fp2(v.x), ...fp2(v.y)];
  const out = [];
  for (let i = 0; i < count; i++) {
    const a = rng.below(n - 1n) + 1n, b = rng.below(n - 1n) + 1n;
    const c = rng.below(n - 1n) + 1n, d = rng.below(n - 1n) + 1n;
    const P = G1.Point.BASE.multiply(a), Q = G2.Point.BASE.multiply(b);
    const P2 = G1.Point.BASE.multiply(c), Q2 = G2.Point.BASE.multiply(d);
    const e1 = curve.pairing(P, Q);
    const e2 = curve.pairing(P2, Q2);
    out.push({
      P: g1(P.toAffine()), Q: g2(Q.toAffine()), P2: g1(P2.toAffine()), Q2: g2(Q2.toAffine()),
      e: fp12(e1), product: fp12(fields.Fp12.mul(e1, e2)),
    });
  }
  return out;
}

function curveVectors(curve, rng, withZcash) {
  const g1c = (v) => [dec(v.x), dec(v.y)];
  const g2c = (v) => [...fp2(v.x), ...fp2(v.y)];
  const result = {
    fp: fieldVectors(curve.fields.Fp, rng, 48),
    fr: fieldVectors(curve.fields.Fr, rng, 48),
    ...towerVectors(curve.fields, rng, 12),
    g1: groupVectors(curve, 'G1', rng, 12, g1c, withZcash),
    g2: groupVectors(curve, 'G2', rng, 8, g2c, withZcash),
    pairing: pairingVectors(curve, rng, 3),
  };
  if (withZcash) {
    result.g1_infinity = { compressed: curve.G1.Point.ZERO.toHex(true), uncompressed: curve.G1.Point.ZERO.toHex(false) };
    result.g2_infinity = { compressed: curve.G2.Point.ZERO.toHex(true), uncompressed: curve.G2.Point.ZERO.toHex(false) };
  }
  return result;
}

const args = parseArgs(process.argv);
const rng = makeRng(args.seed);
const vectors = {
  generator: '@noble/curves',
  seed: dec(args.seed),
  bls12_381: curveVectors(bls12_381, rng, true),
  bn254: curveVectors(bn254, rng, false),
};
writeFileSync(args.out, JSON.stringify(vectors));
console.log(`noble vectors written to ${args.out} (seed ${args.seed})`);
