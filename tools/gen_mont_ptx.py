#!/usr/bin/env python3
"""Writes src/gpu/mont_ptx.inc: the two carry chains of one CIOS row in CUDA inline PTX, for
8 and 12 limbs of 32 bits.

One row of the Montgomery multiplication t = (t + a*b_i + m*p) / 2^32 is two asm blocks:
  row_mul: t[0..N]  += a * b_i      low halves by one mad.lo carry chain, high halves (shifted
                                    one limb) by one mad.hi chain; t[N] is written, not read
  row_red: m = t[0] * inv; t[0..N] += m * p, same two chains; t[0] becomes zero
Each chain is inside one asm block, so no compiler-generated instruction can sit between a
carry-out and its carry-in. The caller renames t (t[j] = t[j+1]) after row_red.
Bounds (the caller's static_assert): p < 2^(32N-1), inputs < p, t < 2p before each row, so
t + a*b_i + m*p < 2p + 2 (2^32 - 1) p = 2^33 p < 2^(32N+32): no carry leaves t[N], and the
shifted t is again below 2p.

Run: python3 tools/gen_mont_ptx.py > src/gpu/mont_ptx.inc   (--check: test the split chains)
"""


def row(n, name, with_m):
    # operands: t0..tN (+r), x0..x(N-1) (r), y (r) [, inv]
    out = []
    emit = out.append
    t = lambda j: f"%{j}"
    x = lambda j: f"%{n + 1 + j}"
    y = f"%{2 * n + 1}"
    lines = []
    if with_m:
        # y holds inv; compute m into a scratch register declared inside the block
        lines.append(".reg .u32 m;")
        lines.append(f"mul.lo.u32 m, {t(0)}, {y};")
        mul = "m"
    else:
        mul = y
    lines.append(f"mad.lo.cc.u32 {t(0)}, {x(0)}, {mul}, {t(0)};")
    for j in range(1, n):
        lines.append(f"madc.lo.cc.u32 {t(j)}, {x(j)}, {mul}, {t(j)};")
    if with_m:
        lines.append(f"addc.u32 {t(n)}, {t(n)}, 0;")
    else:
        lines.append(f"addc.u32 {t(n)}, 0, 0;")
    lines.append(f"mad.hi.cc.u32 {t(1)}, {x(0)}, {mul}, {t(1)};")
    for j in range(1, n - 1):
        lines.append(f"madc.hi.cc.u32 {t(j + 1)}, {x(j)}, {mul}, {t(j + 1)};")
    lines.append(f"madc.hi.u32 {t(n)}, {x(n - 1)}, {mul}, {t(n)};")
    body = "\\n\\t".join(lines)
    outs = ", ".join(f'"+r"(t[{j}])' for j in range(n + 1))
    ins = ", ".join(f'"r"(x[{j}])' for j in range(n)) + ', "r"(y)'
    emit(f"__device__ __forceinline__ void {name}(uint32_t (&t)[{n + 1}], const uint32_t* x, uint32_t y) {{")
    emit(f'  asm("{{\\n\\t{body}\\n\\t}}" : {outs} : {ins});')
    emit("}")
    return "\n".join(out)


# --- Split accumulators -------------------------------------------------------------------------
# The row version above keeps one accumulator t, so the high-half chain of a row must wait for
# the low-half chain to pass each limb, and the reduction for both: one long dependency path. The
# split version keeps two accumulators with T = L + H: low halves of every product go into L
# (limbs 0..N-1, carry into L[N]) and high halves into H (limbs 1..N). The four chains of a row
# (a*b_i low, a*b_i high, m*p low, m*p high) then share only L[0] (m is read from it), so the
# scheduler can run them side by side. After the row, both shift down one limb; H's lowest limb
# is folded into L[0] by the first instruction of the next row's high chain, whose carry goes
# into H[1] through that same chain (so no third chain is needed). A final N-limb addition
# returns L + H.
# Bounds: as for the rows, T < 2^33 p < 2^(32N+32) at every point of a row, and L, H <= T, so
# neither has a carry out of its top limb N; the final L + H < 2p < 2^(32N).


def split_hi(n, name, inject):
    # operands: l0 (+r) when inject, h0..hN (+r), x0..x(N-1) (r), y (r)
    ops_out = []
    if inject:
        ops_out.append('"+r"(l0)')
    ops_out += [f'"+r"(h[{j}])' for j in range(n + 1)]
    base = 1 if inject else 0
    h = lambda j: f"%{base + j}"
    x = lambda j: f"%{base + n + 1 + j}"
    y = f"%{base + 2 * n + 1}"
    lines = []
    if inject:
        lines.append(f"add.cc.u32 %0, %0, {h(0)};")
        lines.append(f"madc.hi.cc.u32 {h(1)}, {x(0)}, {y}, {h(1)};")
    else:
        lines.append(f"mad.hi.cc.u32 {h(1)}, {x(0)}, {y}, {h(1)};")
    for j in range(1, n - 1):
        lines.append(f"madc.hi.cc.u32 {h(j + 1)}, {x(j)}, {y}, {h(j + 1)};")
    lines.append(f"madc.hi.u32 {h(n)}, {x(n - 1)}, {y}, {h(n)};")
    ins = ", ".join(f'"r"(x[{j}])' for j in range(n)) + ', "r"(y)'
    sig = (f"uint32_t& l0, uint32_t (&h)[{n + 1}]" if inject else f"uint32_t (&h)[{n + 1}]")
    return lines, (f"__device__ __forceinline__ void {name}({sig}, const uint32_t* x, uint32_t y) {{\n"
                   f'  asm("{{\\n\\t' + "\\n\\t".join(lines) + f'\\n\\t}}" : {", ".join(ops_out)} : {ins});\n}}')


def split_lo(n, name):
    # operands: l0..lN (+r), x0..x(N-1) (r), y (r)
    l = lambda j: f"%{j}"
    x = lambda j: f"%{n + 1 + j}"
    y = f"%{2 * n + 1}"
    lines = [f"mad.lo.cc.u32 {l(0)}, {x(0)}, {y}, {l(0)};"]
    for j in range(1, n):
        lines.append(f"madc.lo.cc.u32 {l(j)}, {x(j)}, {y}, {l(j)};")
    lines.append(f"addc.u32 {l(n)}, {l(n)}, 0;")
    outs = ", ".join(f'"+r"(l[{j}])' for j in range(n + 1))
    ins = ", ".join(f'"r"(x[{j}])' for j in range(n)) + ', "r"(y)'
    return lines, (f"__device__ __forceinline__ void {name}(uint32_t (&l)[{n + 1}], const uint32_t* x, uint32_t y) {{\n"
                   f'  asm("{{\\n\\t' + "\\n\\t".join(lines) + f'\\n\\t}}" : {outs} : {ins});\n}}')


def split_sum(n, name):
    # r = l + h over N limbs; operands: r0..r(N-1) (=r), l0..l(N-1) (r), h0..h(N-1) (r)
    r = lambda j: f"%{j}"
    l = lambda j: f"%{n + j}"
    h = lambda j: f"%{2 * n + j}"
    lines = [f"add.cc.u32 {r(0)}, {l(0)}, {h(0)};"]
    for j in range(1, n - 1):
        lines.append(f"addc.cc.u32 {r(j)}, {l(j)}, {h(j)};")
    lines.append(f"addc.u32 {r(n - 1)}, {l(n - 1)}, {h(n - 1)};")
    outs = ", ".join(f'"=r"(r[{j}])' for j in range(n))
    ins = ", ".join(f'"r"(l[{j}])' for j in range(n)) + ", " + ", ".join(f'"r"(h[{j}])' for j in range(n))
    return lines, (f"__device__ __forceinline__ void {name}(uint32_t* r, const uint32_t* l, const uint32_t* h) {{\n"
                   f'  asm("{{\\n\\t' + "\\n\\t".join(lines) + f'\\n\\t}}" : {outs} : {ins});\n}}')


# --- An interpreter for the emitted PTX, to check the algorithm on the host -----------------------
M32 = (1 << 32) - 1


def run_ptx(lines, regs):
    """Executes `lines` on regs (a dict from operand number to value), with one carry flag."""
    cc = 0

    def val(tok):
        tok = tok.strip()
        return regs[int(tok[1:])] if tok.startswith("%") else int(tok)

    for line in lines:
        op, args = line.rstrip(";").split(None, 1)
        a = [s.strip() for s in args.split(",")]
        dst = int(a[0][1:])
        if op == "mul.lo.u32":
            regs[dst] = (val(a[1]) * val(a[2])) & M32
            continue
        if op.startswith("mad") :
            prod = val(a[1]) * val(a[2])
            part = prod & M32 if ".lo" in op else prod >> 32
            s = part + val(a[3]) + (cc if op.startswith("madc") else 0)
        elif op.startswith("add"):
            s = val(a[1]) + val(a[2]) + (cc if op.startswith("addc") else 0)
        else:
            raise ValueError(op)
        regs[dst] = s & M32
        if ".cc" in op:
            cc = s >> 32
        elif s >> 32:
            raise AssertionError(f"carry lost in {line}")
    return regs


def limbs(v, n):
    return [(v >> (32 * j)) & M32 for j in range(n)]


def split_mul_reference(n, a, b, p):
    """Mirrors DevFp::operator* (split path) in field.cuh step by step, running the emitted chains."""
    inv = (-pow(p, -1, 1 << 32)) % (1 << 32)
    A, B, P = limbs(a, n), limbs(b, n), limbs(p, n)
    hi_inj, _ = split_hi(n, "", True)
    hi, _ = split_hi(n, "", False)
    lo, _ = split_lo(n, "")
    sm, _ = split_sum(n, "")
    L = [0] * (n + 1)
    H = [0] * (n + 1)

    def call_hi(lines, inject, l0, h, x, y):
        regs = {}
        k = 0
        if inject:
            regs[k] = l0
            k += 1
        for j in range(n + 1):
            regs[k + j] = h[j]
        for j in range(n):
            regs[k + n + 1 + j] = x[j]
        regs[k + 2 * n + 1] = y
        run_ptx(lines, regs)
        return (regs[0] if inject else l0), [regs[k + j] for j in range(n + 1)]

    def call_lo(l, x, y):
        regs = {j: l[j] for j in range(n + 1)}
        for j in range(n):
            regs[n + 1 + j] = x[j]
        regs[2 * n + 1] = y
        run_ptx(lo, regs)
        return [regs[j] for j in range(n + 1)]

    for i in range(n):
        L[0], H = call_hi(hi_inj, True, L[0], H, A, B[i])
        L = call_lo(L, A, B[i])
        m = (L[0] * inv) & M32
        L = call_lo(L, P, m)
        assert L[0] == 0
        _, H = call_hi(hi, False, 0, H, P, m)
        T = sum(v << (32 * j) for j, v in enumerate(L)) + sum(v << (32 * j) for j, v in enumerate(H))
        assert T < (1 << 33) * p
        L = L[1:] + [0]
        H = H[1:] + [0]
    assert L[n] == 0 and H[n] == 0
    regs = {}
    for j in range(n):
        regs[n + j] = L[j]
        regs[2 * n + j] = H[j]
    run_ptx(sm, regs)
    r = sum(regs[j] << (32 * j) for j in range(n))
    assert r < 2 * p
    return r - p if r >= p else r


MODULI = {
    "bls12_381 Fq": (12, 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab),
    "bls12_381 Fr": (8, 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001),
    "bn254 Fq": (8, 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47),
    "bn254 Fr": (8, 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001),
}


def check(trials):
    import random
    rng = random.SystemRandom()
    total = 0
    for name, (n, p) in MODULI.items():
        rinv = pow(1 << (32 * n), -1, p)
        edge = [0, 1, p - 1, p - 2, (1 << (32 * n - 2)) % p]
        cases = [(x, y) for x in edge for y in edge]
        cases += [(rng.randrange(p), rng.randrange(p)) for _ in range(trials)]
        for a, b in cases:
            got = split_mul_reference(n, a, b, p)
            want = a * b * rinv % p
            assert got == want, (name, hex(a), hex(b), hex(got), hex(want))
        print(f"{name}: {len(cases)} products match a * b / 2^{32 * n} mod p", file=sys.stderr)
        total += len(cases)
    # Printed only when every field passed (an assertion stops the run before it).
    print(f"split chains: all {total} products match on {len(MODULI)} moduli", file=sys.stderr)


def main():
    print("// Generated by tools/gen_mont_ptx.py; do not edit.")
    print("// Rows (one accumulator): mont_row_mul<N>: t[0..N] += x * y (t[N] is overwritten: it must be")
    print("// logically zero); mont_row_reduce<N>: t[0..N] += (t[0] * y) * x, with x the modulus and")
    print("// y = -p^-1 mod 2^32.")
    print("// Split (two accumulators, T = L + H; `python3 tools/gen_mont_ptx.py --check` runs the")
    print("// emitted chains in an interpreter against Python integers): mont_split_hi_inject<N>: l0 +=")
    print("// h[0], with its carry and the high halves of x * y added into h[1..N]; mont_split_hi<N>: the")
    print("// high halves of x * y into h[1..N]; mont_split_lo<N>: the low halves of x * y into l[0..N];")
    print("// mont_split_sum<N>: r = l + h over N limbs.")
    print("#pragma once")
    print("#include <cstdint>")
    print("namespace snarkd::gpu::ptx {")
    for n in (8, 12):
        print(row(n, f"mont_row_mul_{n}", False))
        print(row(n, f"mont_row_reduce_{n}", True))
        print(split_hi(n, f"mont_split_hi_inject_{n}", True)[1])
        print(split_hi(n, f"mont_split_hi_{n}", False)[1])
        print(split_lo(n, f"mont_split_lo_{n}")[1])
        print(split_sum(n, f"mont_split_sum_{n}")[1])
    print("}  // namespace snarkd::gpu::ptx")


import sys

if "--check" in sys.argv:
    check(200)
else:
    main()
