#!/usr/bin/env python3
# qr_small (crates/gpublas/kernels/qr.cu) on the CPU emulator: the old (HEAD) and new builds
# against LAPACK geqrf (numpy.linalg.qr mode='raw') and each other; padding must stay untouched.
# usage: cases.py [--quick]
import numpy as np, subprocess, os, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
SENT = -7.77e37
DT = {'d': (np.float64, np.float64), 'z': (np.complex128, np.float64), 's': (np.float32, np.float32), 'c': (np.complex64, np.float32)}

def run(binname, t, m, n, ld, mats, extra=3):
    dt = DT[t][0]
    ne = len(mats); k = min(m, n)
    es = ld * n + extra; tau_s = k + extra
    A = np.full(ne * es, SENT, dtype=dt)
    for e, M in enumerate(mats):
        for c in range(n):
            A[e * es + c * ld: e * es + c * ld + m] = M[:, c]
    tau = np.full(ne * tau_s, SENT, dtype=dt)
    with tempfile.TemporaryDirectory() as d:
        fi, fo = os.path.join(d, 'in'), os.path.join(d, 'out')
        with open(fi, 'wb') as f:
            np.array([m, n, ld, ne, es, tau_s], dtype=np.int64).tofile(f); A.tofile(f); tau.tofile(f)
        subprocess.run([os.path.join(here, binname), t, fi, fo], check=True)
        out = np.fromfile(fo, dtype=dt)
    A2, tau2 = out[:ne * es], out[ne * es:]
    res = []
    pad_bad = 0
    for e in range(ne):
        blk = A2[e * es:(e + 1) * es]
        mask = np.ones(es, bool)
        for c in range(n): mask[c * ld: c * ld + m] = False
        pad_bad += int(np.sum(blk[mask] != SENT))
        tb = tau2[e * tau_s:(e + 1) * tau_s]
        pad_bad += int(np.sum(tb[k:] != SENT))
        H = np.stack([blk[c * ld: c * ld + m] for c in range(n)], axis=1) if n else np.zeros((m, 0), dt)
        res.append((H, tb[:k].copy()))
    return res, pad_bad

def ref(M):
    M = M.astype(np.complex128 if np.iscomplexobj(M) else np.float64)
    if M.shape[1] == 0 or M.shape[0] == 0: return M.copy(), np.zeros(0, M.dtype)
    h, tau = np.linalg.qr(M, mode='raw')
    return h.T.copy(), tau

def gen(kind, m, n, t, seed):
    g = np.random.default_rng(seed)
    cplx = t in 'zc'
    M = g.uniform(-1, 1, (m, n)) + (1j * g.uniform(-1, 1, (m, n)) if cplx else 0)
    if kind == 'rand': pass
    elif kind == 'zcol' and n > 1: M[:, n // 2] = 0
    elif kind == 'zsub' and n > 1: M[1:, 0] = 0; M[2:, min(1, n - 1)] = 0   # identity reflectors (real alpha)
    elif kind == 'tiny': M = M * 1e-300          # scaled-norm path (sum of squares underflows)
    elif kind == 'huge': M = M * 1e300           # scaled-norm path (overflow)
    elif kind == 'mixed' and n > 2: M[:, 0] *= 1e-160; M[:, 2] *= 1e160
    elif kind == 'tinycol' and n > 1: M[:, 1] *= 1e-310   # subnormal column
    elif kind == 'betatiny': M = M * 1e-315               # larfg's rescale (beta < safmin)
    elif kind == 'rank1' and n > 0: M = np.outer(M[:, 0], g.uniform(-1, 1, n))
    elif kind == 'upper': M = np.triu(M)
    M = M.astype(DT[t][0])
    return M

def rel(a, b, scale):
    if a.size == 0: return 0.0
    return float(np.max(np.abs(a.astype(np.complex128) - b.astype(np.complex128)))) / scale

def check(t, m, n, ld, kinds, seed, quiet=False):
    mats = [gen(kd, m, n, t, seed + i) for i, kd in enumerate(kinds)]
    ro, po = run('qrs_test_old', t, m, n, ld, mats)
    rn, pn = run('qrs_test_new', t, m, n, ld, mats)
    worst = (0, 0, 0, 0)
    lines = []
    for (M, kd, (Ho, to), (Hn, tn)) in zip(mats, kinds, ro, rn):
        Hr, tr = ref(M)
        sc = max(float(np.max(np.abs(M))) if M.size else 1.0, 1e-320)
        # compare with LAPACK: R (upper) relative to |A|, V and tau absolutely (both O(1))
        k = min(m, n)
        def d3(H, ta):
            dR = rel(np.triu(H), np.triu(Hr), sc)
            dV = rel(np.tril(H, -1)[:, :k], np.tril(Hr, -1)[:, :k], 1.0)
            dT = rel(ta, tr, 1.0)
            return dR if kd == 'rank1' else max(dR, dV, dT)   # rank 1: V, tau of noise
        eo, en = d3(Ho, to), d3(Hn, tn)
        don = max(rel(np.triu(Hn), np.triu(Ho), sc), rel(np.tril(Hn, -1), np.tril(Ho, -1), 1.0), rel(tn, to, 1.0))
        if kd == 'rank1': don = rel(np.triu(Hn), np.triu(Ho), sc)
        same = np.array_equal(Hn.view(np.uint8) if Hn.size else Hn, Ho.view(np.uint8) if Ho.size else Ho) and np.array_equal(tn, to)
        lines.append(f'{t} {m}x{n} ld{ld} {kd:8s} old-vs-lapack {eo:.2e} new-vs-lapack {en:.2e} new-vs-old {don:.2e}{" (bitwise)" if same else ""}')
        worst = (max(worst[0], eo if np.isfinite(eo) else 9e9), max(worst[1], en if np.isfinite(en) else 9e9), max(worst[2], don if np.isfinite(don) else 9e9), 0)
    lines.append(f'   padding written: old {po} new {pn}')
    print('\n'.join(lines), flush=True)
    return worst, po, pn

if __name__ == '__main__':
    W = {}
    allk = ['rand', 'zcol', 'zsub', 'tiny', 'huge', 'mixed', 'tinycol', 'betatiny', 'rank1', 'upper']
    shapes = [(32, 32, 32), (32, 32, 35), (31, 32, 33), (32, 31, 32), (20, 32, 24), (32, 20, 40), (17, 9, 17),
              (5, 30, 7), (1, 1, 1), (32, 1, 32), (1, 32, 2), (3, 3, 4), (32, 0, 32), (0, 5, 1), (12, 12, 12)]
    types = sys.argv[1:] or ['d', 'z', 's', 'c']
    seed = 1
    for t in types:
        for (m, n, ld) in shapes:
            kinds = allk[:5] if (m, n) != (32, 32) else allk
            if t in 'sc': kinds = ['rand', 'zcol', 'zsub', 'rank1', 'upper']
            w, po, pn = check(t, m, n, max(ld, 1), kinds, seed); seed += 100
            W.setdefault(t, [0, 0, 0, 0, 0])
            for q in range(3): W[t][q] = max(W[t][q], w[q])
            W[t][3] += po; W[t][4] += pn
    for t, w in W.items():
        print(f'SUMMARY {t}: max old-vs-lapack {w[0]:.2e} new-vs-lapack {w[1]:.2e} new-vs-old {w[2]:.2e} padding writes old {w[3]} new {w[4]}')
