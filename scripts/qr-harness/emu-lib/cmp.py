#!/usr/bin/env python3
# Numerical comparison of two builds on the same inputs (where bitwise equality is not expected,
# e.g. a changed summation order): cmp.py BIN_NEW BIN_OLD CASE...  (names from cases.py, plain or
# v*; env per build: BIN may be ENV=VAL:BIN, e.g. EMU_REDUCE=1:cholqr_lib_test).
# Per case: flags must agree exactly (chol1/lu origin included); entries with flag 0: max |R - R'|
# / max |R'|, max |V - V'| / max |V'|, max |tau - tau'| in eps; v* cases also Vf, T, VT (same
# measure); entries with flag 1: A and tau bit-identical. Prints "bitwise" where the outputs are.
import sys, os, numpy as np
import cases
from cases import C, VC, SENT, POISON, EPS, rnd, emu

def spec(b):
    env = {}
    if ":" in b:
        e, b = b.split(":", 1)
        for kv in e.split(","):
            k, v = kv.split("="); env[k] = v
    return os.path.join(cases.here, b), env

def run_bin(b, hdr, bufs):
    path, env = spec(b)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        r, o, dt = emu(path, hdr, bufs)
    finally:
        for k, v in old.items():
            if v is None: os.environ.pop(k, None)
            else: os.environ[k] = v
    if o is None: sys.exit(f"{b}: exit {r.returncode} {r.stderr.strip()}")
    return o, r.stderr.strip(), dt

def rel(a, b):
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))): return np.inf
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300) / EPS if a.size else 0.0

def inputs(name):
    I = lambda *v: np.array(v, np.int64)
    if name in C:
        m, n, lda, cqb, mks, expect, extra = C[name]
        vf = None
    else:
        m, n, lda, cqb, mks, expect, extra, vf_ld, vf_extra, t_ld, t_extra, vt_ld, vt_extra = VC[name]
        vf = (vf_ld, vf_ld * n + vf_extra, t_ld, t_ld * n + t_extra, vt_ld, vt_ld * n + vt_extra)
    ne = len(mks); es = lda * n + extra; tau_s = n + 3
    Abuf = np.full(ne * es, SENT); Tbuf = np.full(ne * tau_s, SENT)
    PA = Abuf.copy(); PT = Tbuf.copy()
    for e, mk in enumerate(mks):
        a = mk(m, n)
        blk = np.full((n, lda), SENT); blk[:, :m] = a.T
        Abuf[e * es: e * es + lda * n] = blk.ravel()
        if vf:
            h, tl = np.linalg.qr(a, mode='raw')
            blk[:, :m] = h
            PA[e * es: e * es + lda * n] = blk.ravel(); PT[e * tau_s: e * tau_s + n] = tl
    hdr = [m, n, lda, ne, es, cqb, tau_s]
    if not vf: return (m, n, lda, ne, es, tau_s, None), hdr, [Abuf, Tbuf]
    vf_ld, vf_es, t_ld, t_es, vt_ld, vt_es = vf
    bufs = [Abuf, Tbuf, I(1 | 2 | 4 | 8, vf_ld, vf_es, ne * vf_es, t_ld, t_es, ne * t_es, vt_ld, vt_es, ne * vt_es),
            PA, PT, np.full(ne * vf_es, POISON), np.full(ne * t_es, POISON), np.full(ne * vt_es, POISON)]
    return (m, n, lda, ne, es, tau_s, vf), hdr, bufs

def main():
    bn, bo, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    if names == ["all"]: names = list(C)
    elif names == ["vf"]: names = list(VC)
    bad = 0; worst = {}
    for nm in names:
        (m, n, lda, ne, es, tau_s, vf), hdr, bufs = inputs(nm)
        o1, err1, dt1 = run_bin(bn, hdr, bufs)
        o2, err2, dt2 = run_bin(bo, hdr, bufs)
        k = ne * es + ne * tau_s
        f1, f2 = o1[k:k + ne + 1].view(np.int64), o2[k:k + ne + 1].view(np.int64)
        fuse = err1.split("fuse ")[1].split(" ")[0] if "fuse " in err1 else "?"
        same = o1.tobytes() == o2.tobytes()
        ok = np.array_equal(f1[:ne], f2[:ne]) and f1[ne] == 0 and f2[ne] == 0
        msg = [f"{nm} ({dt1:.0f} + {dt2:.0f} s, fuse {fuse}): flags {[int(v) for v in f1[:ne] & 0xff]} vs {[int(v) for v in f2[:ne] & 0xff]} "
               f"(by {['chol1' if f & 0x100 else 'lu' for f in f1[:ne]]}) {'agree' if ok else 'DIFFER'}"
               f"{', bitwise identical' if same else ''}"]
        for e in range(ne):
            a1 = o1[e * es:e * es + lda * n].reshape(n, lda).T[:m]; a2 = o2[e * es:e * es + lda * n].reshape(n, lda).T[:m]
            t1 = o1[ne * es + e * tau_s:ne * es + e * tau_s + n]; t2 = o2[ne * es + e * tau_s:ne * es + e * tau_s + n]
            if (f1[e] & 0xff) == 1:
                eq = o1[e * es:(e + 1) * es].tobytes() == o2[e * es:(e + 1) * es].tobytes() and t1.tobytes() == t2.tobytes()
                ok &= eq
                msg.append(f"  e{e}: flag 1: A and tau {'bit-identical' if eq else 'DIFFER'}")
                continue
            d = {"R": rel(np.triu(a1[:n]), np.triu(a2[:n])), "V": rel(np.tril(a1, -1), np.tril(a2, -1)),
                 "tau": np.abs(t1 - t2).max() / EPS}
            if vf:
                vf_ld, vf_es, t_ld, t_es, vt_ld, vt_es = vf
                b = k + ne + 1
                def mat(off, es_, ld, rows):
                    return o1[b + off + e * es_: b + off + e * es_ + ld * n].reshape(n, ld).T[:rows], \
                        o2[b + off + e * es_: b + off + e * es_ + ld * n].reshape(n, ld).T[:rows]
                d["Vf"] = rel(*mat(0, vf_es, vf_ld, m))
                d["T"] = rel(*mat(ne * vf_es, t_es, t_ld, n))
                d["VT"] = rel(*mat(ne * vf_es + ne * t_es, vt_es, vt_ld, m))
            for kk, v in d.items(): worst[kk] = max(worst.get(kk, 0.0), v)
            good = all(v < 64 for v in d.values())   # rounding level: a few eps relative to the max
            ok &= good
            msg.append(f"  e{e}: flag 0: max diff vs old (eps, rel to max): " + " ".join(f"{kk} {v:.2f}" for kk, v in d.items())
                       + ("" if good else " TOO LARGE"))
        if not ok: msg.append("  FAIL"); bad += 1
        print("\n".join(msg), flush=True)
    print("worst (eps, rel to max): " + " ".join(f"{kk} {v:.2f}" for kk, v in worst.items()))
    print(f"{len(names) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)

main()
