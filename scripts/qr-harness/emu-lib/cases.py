#!/usr/bin/env python3
# Cases for the library CholeskyQR2 kernels on the CPU emulator (cholqr_lib_test).
# usage: cases.py [--bin cholqr_lib_test] [--prev BIN] [--list] NAME...   (names, 'all' or 'vf'); one emulator
# process at a time. Compares with LAPACK dgeqrf (numpy.linalg.qr(mode='raw')).
import numpy as np, subprocess, sys, os, time, tempfile
here = os.path.dirname(os.path.abspath(__file__))
EPS = 2.220446049250313e-16
SENT = -7.77e77   # padding sentinel
BLOB = ''

def rnd(m, n, seed):
    return np.random.default_rng(seed).uniform(-1, 1, (m, n))

def cond(m, n, kappa, seed):
    g = np.random.default_rng(seed)
    q0, _ = np.linalg.qr(g.standard_normal((m, n)))
    q1, _ = np.linalg.qr(g.standard_normal((n, n)))
    s = np.logspace(0, -np.log10(kappa), n)
    return (q0 * s) @ q1.T

def k_equal(m, n, s):
    a = rnd(m, n, s); a[:, n - 3] = a[:, 1]; return a
def k_zero(m, n, s):
    a = rnd(m, n, s); a[:, n // 2] = 0; return a
def k_nan(m, n, s):
    a = rnd(m, n, s); a[m // 2, n // 3] = np.nan; return a
def k_upper(m, n, s):
    a = rnd(m, n, s); a[n:, :] = 0; return np.triu(a) + 0.0 * a
def k_onecol(m, n, s):
    a = rnd(m, n, s); a[n:, :] = 0; a[n:, n // 2] = rnd(m - n, 1, s + 1)[:, 0]; return a
def k_upper_last_ok(m, n, s):     # rows >= n zero except the last column -> columns < n-1 have nothing below
    a = rnd(m, n, s); a[n:, :-1] = 0; return a

# name: (m, n, lda, cq_blocks, [entry makers], expected flags (None: either), es extra)
C = {}
def case(name, m, n, mk, expect, lda=None, cqb=8, extra=0):
    C[name] = (m, n, lda or m, cqb, mk, expect, extra)

case("r2048x64", 2048, 64, [lambda m, n: rnd(m, n, 1)], [0])
case("r1000x20", 1000, 20, [lambda m, n: rnd(m, n, 2)], [0])
case("r1000x20b1", 1000, 20, [lambda m, n: rnd(m, n, 2)], [0], cqb=1)
case("r3000x5", 3000, 5, [lambda m, n: rnd(m, n, 3)], [0], lda=3003)
case("r129x16", 129, 16, [lambda m, n: rnd(m, n, 4)], [0])
case("r4096x64b3", 4096, 64, [lambda m, n: rnd(m, n, 5)], [0], cqb=3)
case("r640x40b3", 640, 40, [lambda m, n: rnd(m, n, 6)], [0], lda=645, cqb=3)
case("r300x1", 300, 1, [lambda m, n: rnd(m, n, 40)], [0], lda=301)
case("r100x12", 100, 12, [lambda m, n: rnd(m, n, 41)], [0])
case("r520x63b3", 520, 63, [lambda m, n: rnd(m, n, 42)], [0], cqb=3)
case("r1100x33b1", 1100, 33, [lambda m, n: rnd(m, n, 43)], [0], lda=1101, cqb=1)
case("r512x64", 512, 64, [lambda m, n: rnd(m, n, 44)], [0])
case("ne2rand", 700, 20, [lambda m, n: rnd(m, n, 7), lambda m, n: rnd(m, n, 8)], [0, 0], lda=703, extra=11)
case("ne2mixed", 700, 20, [lambda m, n: rnd(m, n, 9), lambda m, n: k_equal(m, n, 10)], [0, 1], lda=703, extra=11)
case("ne2mixed64", 600, 64, [lambda m, n: rnd(m, n, 19), lambda m, n: k_zero(m, n, 20)], [0, 1], cqb=3, extra=5)
case("fb_equal", 600, 24, [lambda m, n: k_equal(m, n, 11)], [1])
case("fb_zero", 600, 24, [lambda m, n: k_zero(m, n, 12)], [1])
case("fb_nan", 600, 24, [lambda m, n: k_nan(m, n, 13)], [1], lda=601)
case("fb_upper", 600, 24, [lambda m, n: k_upper(m, n, 14)], [1])
case("fb_onecol", 600, 24, [lambda m, n: k_onecol(m, n, 15)], [1])
case("fb_lastcol", 600, 64, [lambda m, n: k_upper_last_ok(m, n, 21)], [1])
case("fb_big", 600, 24, [lambda m, n: rnd(m, n, 16) * 1e160], [1])
case("fb_tiny", 600, 24, [lambda m, n: rnd(m, n, 17) * 1e-160], [1])
case("fb_k1e10", 1024, 32, [lambda m, n: cond(m, n, 1e10, 18)], [1])
case("k1e6", 1024, 32, [lambda m, n: cond(m, n, 1e6, 22)], [None])
case("k1e6x64", 1024, 64, [lambda m, n: cond(m, n, 1e6, 23)], [None])
case("k1e7", 1024, 32, [lambda m, n: cond(m, n, 1e7, 26)], [None])
case("k1e8", 1024, 32, [lambda m, n: cond(m, n, 1e8, 27)], [None])
case("fb_lu_k3e8", 1024, 32, [lambda m, n: cond(m, n, 3e8, 30)], [1])       # chol1 passes, ||G2 - I|| > 0.1
case("ne2lu", 1024, 32, [lambda m, n: rnd(m, n, 31), lambda m, n: cond(m, n, 3e8, 30)], [0, 1], lda=1030, extra=3)
case("ok_1e130", 600, 24, [lambda m, n: rnd(m, n, 24) * 1e130], [0])
case("ok_1e-130", 600, 24, [lambda m, n: rnd(m, n, 25) * 1e-130], [0])
# nblk part > FUSE_MAX (65536; part 2176 at width 64): the launcher's cq_reduce / cq_reduce2 (slow)
case("r3968x64b31", 3968, 64, [lambda m, n: rnd(m, n, 45)], [0], cqb=31)

def check_entry(A0, out, tau, m, n):
    V = np.tril(out, -1); V[:n, :n] += np.eye(n)
    Q = np.eye(m)[:, :n].copy()
    for j in reversed(range(n)):
        Q -= tau[j] * np.outer(V[:, j], V[:, j] @ Q)
    R = np.triu(out[:n])
    res = np.linalg.norm(A0 - Q @ R) / (np.linalg.norm(A0) * n * EPS)
    orth = np.linalg.norm(Q.T @ Q - np.eye(n)) / (n * EPS)
    h, tl = np.linalg.qr(A0, mode='raw')      # LAPACK dgeqrf
    L = h.T
    Rl = np.triu(L[:n]); Vl = np.tril(L, -1)
    dR = np.abs(R - Rl).max() / np.abs(Rl).max() / EPS
    dV = np.abs(np.tril(out, -1) - Vl).max() / max(np.abs(Vl).max(), 1e-300) / EPS
    dtau = np.abs(tau - tl).max() / EPS
    sign_ok = bool(np.all(np.sign(np.diag(R)) == np.sign(np.diag(Rl))))
    return res, orth, dR, dV, dtau, sign_ok, tau.min(), tau.max()

def run(name, binp):
    m, n, lda, cqb, mks, expect, extra = C[name]
    ne = len(mks); es = lda * n + extra; tau_s = n + 3
    Abuf = np.full(ne * es, SENT); Tbuf = np.full(ne * tau_s, SENT)
    A0s = []
    for e, mk in enumerate(mks):
        a = mk(m, n); A0s.append(a)
        blk = np.full((n, lda), SENT); blk[:, :m] = a.T
        Abuf[e * es: e * es + lda * n] = blk.ravel()
    d = tempfile.mkdtemp(prefix="cqemu")
    fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
    with open(fin, "wb") as f:
        np.array([m, n, lda, ne, es, cqb, tau_s], np.int64).tofile(f); Abuf.tofile(f); Tbuf.tofile(f)
    t0 = time.time()
    r = subprocess.run([binp, fin, fout], capture_output=True, text=True)
    dt = time.time() - t0
    if r.returncode:
        print(f"{name}: exit {r.returncode} {r.stderr.strip()}"); return False
    o = np.fromfile(fout)
    Ao, To = o[:ne * es], o[ne * es: ne * es + ne * tau_s]
    fl = o[ne * es + ne * tau_s:].view(np.int64)
    flags, oob = fl[:ne] & 0xff, fl[ne]
    by = ["chol1" if f & 0x100 else "lu" for f in fl[:ne]]
    os.remove(fin); os.remove(fout); os.rmdir(d)
    ok = oob == 0
    global BLOB; BLOB = r.stderr.split(":")[0]
    msg = [f"{name} {m}x{n} lda {lda} cqb {cqb} ne {ne} ({dt:.0f} s){' OOB smem write!' if oob else ''}"]
    for e in range(ne):
        fl_e = int(flags[e])
        blk = Ao[e * es:(e + 1) * es]; tb = To[e * tau_s:(e + 1) * tau_s]
        blk0 = Abuf[e * es:(e + 1) * es]; tb0 = Tbuf[e * tau_s:(e + 1) * tau_s]
        good = expect[e] is None or expect[e] == fl_e
        if fl_e == 1:
            same = blk.tobytes() == blk0.tobytes() and tb.tobytes() == tb0.tobytes()
            good &= same
            msg.append(f"  e{e}: flag 1 (fallback, set by {by[e]}), A and tau untouched: {'yes' if same else 'NO'}")
        elif fl_e == 0:
            full = blk[:lda * n].reshape(n, lda).T
            out = full[:m].copy()
            pad_ok = bool(np.all(full[m:] == SENT)) and bool(np.all(blk[lda * n:] == SENT)) and bool(np.all(tb[n:] == SENT))
            res, orth, dR, dV, dtau, sgn, tmin, tmax = check_entry(A0s[e], out, tb[:n], m, n)
            g = pad_ok and res < 30 and orth < 30 and 1 <= tmin and tmax <= 2 and sgn and np.all(np.isfinite(out))
            good &= g
            msg.append(f"  e{e}: flag 0, resid {res:.2f} orth {orth:.2f} (n eps), tau {tmin:.4f}..{tmax:.4f}, "
                       f"vs dgeqrf: R {dR:.1f} V {dV:.1f} tau {dtau:.1f} (eps, rel), signs {'ok' if sgn else 'DIFFER'}, "
                       f"padding {'untouched' if pad_ok else 'TOUCHED'}")
        else:
            good = False; msg.append(f"  e{e}: flag {fl_e} (never written?)")
        if not good: msg.append(f"  e{e}: FAIL (expected flag {expect[e]})")
        ok &= good
    print("\n".join(msg), flush=True)
    return ok

# --- Vf / T outputs (Cqp.vf, cq_lu / cq_finish / cq_tfall) -----------------------------------
# name: (m, n, lda, cq_blocks, [entry makers], expected flags, es extra, vf_ld, vf_es extra,
# t_ld, t_es extra). Runs: the library's sequence with Vf/T (poisoned, ld beyond rows / cols),
# qr_cqtfall after finish, the gated Householder panel emulated (dgeqrf's A and tau where the
# flag is set); and the same with vf = 0 (the baseline: A and tau must be bit-identical).
VC = {}
# VT (Cqp.vt, VT = Vf T, rows x cols): ld vt_ld (default m + 3 + n % 7, past rows), entry
# distance vt_ld n + vt_extra (default 1 + n % 5, nonzero).
def vcase(name, m, n, mk, expect, lda=None, cqb=8, extra=0, vf_ld=None, vf_extra=0, t_ld=None, t_extra=0,
          vt_ld=None, vt_extra=None):
    VC[name] = (m, n, lda or m, cqb, mk, expect, extra, vf_ld or m + 5, vf_extra, t_ld or n + 3, t_extra,
                vt_ld or m + 3 + n % 7, 1 + n % 5 if vt_extra is None else vt_extra)

vcase("v300x16", 300, 16, [lambda m, n: rnd(m, n, 101)], [0])
vcase("v300x5", 300, 5, [lambda m, n: rnd(m, n, 102)], [0], lda=301, vf_ld=307, t_ld=9)
vcase("v700x20", 700, 20, [lambda m, n: rnd(m, n, 103)], [0], cqb=3)
vcase("v600x32ne2", 600, 32, [lambda m, n: rnd(m, n, 104), lambda m, n: rnd(m, n, 105)], [0, 0],
      lda=603, extra=7, vf_ld=611, vf_extra=13, t_ld=35, t_extra=5, vt_ld=613, vt_extra=19)
vcase("v520x40ne2", 520, 40, [lambda m, n: rnd(m, n, 106), lambda m, n: rnd(m, n, 107)], [0, 0],
      lda=523, cqb=3, extra=2, vf_ld=530, vf_extra=3, t_ld=41, t_extra=9)
vcase("v1024x64ne2", 1024, 64, [lambda m, n: rnd(m, n, 108), lambda m, n: rnd(m, n, 109)], [0, 0],
      lda=1030, cqb=3, extra=5, vf_ld=1031, vf_extra=17, t_ld=67, t_extra=1)
vcase("v1100x33", 1100, 33, [lambda m, n: rnd(m, n, 110)], [0], cqb=1, vf_ld=1109, t_ld=40)
vcase("v1024x32k1e6", 1024, 32, [lambda m, n: cond(m, n, 1e6, 111)], [None])
vcase("v1024x64k1e6", 1024, 64, [lambda m, n: cond(m, n, 1e6, 112)], [None], vf_ld=1040, t_ld=70)
vcase("vmix16", 400, 16, [lambda m, n: rnd(m, n, 113), lambda m, n: k_zero(m, n, 114)], [0, 1],
      lda=401, extra=3, vf_ld=409, vf_extra=11, t_ld=17, t_extra=4)
vcase("vmix32", 700, 20, [lambda m, n: k_equal(m, n, 115), lambda m, n: rnd(m, n, 116)], [1, 0],
      lda=703, extra=11, vf_ld=707, vf_extra=2, t_ld=23, t_extra=3)
vcase("vmix40", 520, 40, [lambda m, n: rnd(m, n, 117), lambda m, n: k_zero(m, n, 118)], [0, 1],
      cqb=3, extra=5, vf_ld=525, vf_extra=6, t_ld=45, t_extra=2)
vcase("vmix64", 600, 64, [lambda m, n: k_zero(m, n, 119), lambda m, n: rnd(m, n, 120)], [1, 0],
      cqb=3, extra=5, vf_ld=613, vf_extra=3, t_ld=66, t_extra=7)
vcase("vfb_zero", 600, 24, [lambda m, n: k_zero(m, n, 121)], [1])
vcase("vfb_upper", 600, 24, [lambda m, n: k_upper(m, n, 122)], [1])
vcase("vfb_onecol", 600, 24, [lambda m, n: k_onecol(m, n, 123)], [1])
vcase("vfb_lastcol", 600, 64, [lambda m, n: k_upper_last_ok(m, n, 124)], [1])
vcase("vfb_k1e10", 1024, 32, [lambda m, n: cond(m, n, 1e10, 18)], [1])          # set by chol1
vcase("vfb_lu_k3e8", 1024, 32, [lambda m, n: cond(m, n, 3e8, 30)], [1])         # set by lu
vcase("vfb_ne2", 500, 40, [lambda m, n: k_equal(m, n, 125), lambda m, n: k_zero(m, n, 126)], [1, 1],
      lda=505, extra=1, vf_ld=509, vf_extra=9, t_ld=43, t_extra=11)
vcase("vfb_ne2x16", 300, 16, [lambda m, n: k_zero(m, n, 127), lambda m, n: cond(m, n, 1e10, 128)], [1, 1],
      vf_ld=303, vf_extra=1, t_ld=20, t_extra=3)
vcase("vne2lu", 1024, 32, [lambda m, n: rnd(m, n, 31), lambda m, n: cond(m, n, 3e8, 30)], [0, 1],
      lda=1030, extra=3, vf_ld=1033, vf_extra=5, t_ld=34, t_extra=1)

RES = {}   # the worst VT errors over the cases run
POISON = np.array([0x7ff4dead0000beef], np.uint64).view(np.float64)[0]   # a signalling NaN's bits

def larft(V, tau):  # LAPACK dlarft('F', 'C'), plain recurrence in f64
    n = V.shape[1]; T = np.zeros((n, n))
    for i in range(n):
        T[:i, i] = -tau[i] * (T[:i, :i] @ (V[:, :i].T @ V[:, i]))
        T[i, i] = tau[i]
    return T

def emu(binp, hdr, bufs):
    d = tempfile.mkdtemp(prefix="cqemu")
    fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
    with open(fin, "wb") as f:
        for b in [np.array(hdr, np.int64)] + bufs: b.tofile(f)
    t0 = time.time()
    r = subprocess.run([binp, fin, fout], capture_output=True, text=True)
    dt = time.time() - t0
    o = None if r.returncode else np.fromfile(fout)
    os.remove(fin); os.path.exists(fout) and os.remove(fout); os.rmdir(d)
    return r, o, dt

def bits(x): return np.ascontiguousarray(x).view(np.uint64)

def run_vf(name, binp, prevp=None):
    m, n, lda, cqb, mks, expect, extra, vf_ld, vf_extra, t_ld, t_extra, vt_ld, vt_extra = VC[name]
    ne = len(mks); es = lda * n + extra; tau_s = n + 3
    vf_es = vf_ld * n + vf_extra; t_es = t_ld * n + t_extra; vt_es = vt_ld * n + vt_extra
    vf_n, t_n, vt_n = ne * vf_es, ne * t_es, ne * vt_es
    Abuf = np.full(ne * es, SENT); Tbuf = np.full(ne * tau_s, SENT)
    PA = Abuf.copy(); PT = Tbuf.copy()
    A0s = []
    for e, mk in enumerate(mks):
        a = mk(m, n); A0s.append(a)
        blk = np.full((n, lda), SENT); blk[:, :m] = a.T
        Abuf[e * es: e * es + lda * n] = blk.ravel()
        h, tl = np.linalg.qr(a, mode='raw')       # the gated Householder panel: LAPACK dgeqrf
        blk[:, :m] = h
        PA[e * es: e * es + lda * n] = blk.ravel(); PT[e * tau_s: e * tau_s + n] = tl
    VF0 = np.full(vf_n, POISON); TT0 = np.full(t_n, POISON); VT0 = np.full(vt_n, POISON)
    hdr = [m, n, lda, ne, es, cqb, tau_s]
    I = lambda *v: np.array(v, np.int64)
    r, o, dt = emu(binp, hdr, [Abuf, Tbuf, I(1 | 2 | 4 | 8, vf_ld, vf_es, vf_n, t_ld, t_es, t_n, vt_ld, vt_es, vt_n),
                               PA, PT, VF0, TT0, VT0])
    if o is None:
        print(f"{name}: exit {r.returncode} {r.stderr.strip()}"); return False
    prev_same = None
    if prevp:   # the source before VT (novt.py): the whole output, Vf and T buffers included, bit for bit
        rp, op, _ = emu(prevp, hdr, [Abuf, Tbuf, I(1 | 2 | 4, vf_ld, vf_es, vf_n, t_ld, t_es, t_n), PA, PT, VF0, TT0])
        if op is None:
            print(f"{name} (prev): exit {rp.returncode} {rp.stderr.strip()}"); return False
        prev_same = bits(op).tobytes() == bits(o[:op.size]).tobytes()
    rb, ob, dtb = emu(binp, hdr, [Abuf, Tbuf, I(2 | 4, 0, 0, 0, 0, 0, 0), PA, PT])
    if ob is None:
        print(f"{name} (vf = 0): exit {rb.returncode} {rb.stderr.strip()}"); return False
    global BLOB; BLOB = r.stderr.split(":")[0]
    k = ne * es + ne * tau_s
    Ao, To = o[:ne * es], o[ne * es:k]
    fl = o[k:k + ne + 1].view(np.int64); flags, oob = fl[:ne] & 0xff, fl[ne]
    VFo = o[k + ne + 1:k + ne + 1 + vf_n]; TTo = o[k + ne + 1 + vf_n:k + ne + 1 + vf_n + t_n]
    VTo = o[k + ne + 1 + vf_n + t_n:]
    assert TTo.size == t_n and VTo.size == vt_n
    Ab, Tb = ob[:ne * es], ob[ne * es:k]
    flb = ob[k:k + ne + 1].view(np.int64)
    same_base = bits(Ao).tobytes() == bits(Ab).tobytes() and bits(To).tobytes() == bits(Tb).tobytes() \
        and np.array_equal(fl[:ne], flb[:ne])
    ok = oob == 0 and flb[ne] == 0 and same_base and prev_same is not False
    msg = [f"{name} {m}x{n} lda {lda} cqb {cqb} ne {ne} vf_ld {vf_ld} vf_es {vf_es} t_ld {t_ld} t_es {t_es} "
           f"vt_ld {vt_ld} vt_es {vt_es} ({dt:.0f} + {dtb:.0f} s){' OOB smem write!' if oob or flb[ne] else ''}; "
           f"A, tau, flags vs vf = 0: {'bit-identical' if same_base else 'DIFFER'}"
           + ("" if prev_same is None else f"; A, tau, flags, Vf, T vs the source before VT: {'bit-identical' if prev_same else 'DIFFER'}")]
    for e in range(ne):
        fl_e = int(flags[e])
        good = (expect[e] is None or expect[e] == fl_e) and fl_e in (0, 1)
        blk = Ao[e * es:(e + 1) * es]; tb = To[e * tau_s:(e + 1) * tau_s]
        if fl_e == 1:   # the panel's result must be there, untouched by tfall
            pan = bits(blk).tobytes() == bits(PA[e * es:(e + 1) * es]).tobytes() and \
                bits(tb).tobytes() == bits(PT[e * tau_s:(e + 1) * tau_s]).tobytes()
            good &= pan
        full = blk[:lda * n].reshape(n, lda).T
        out = full[:m].copy(); tau = tb[:n].copy()
        V = np.tril(out, -1); V[:n, :n] += np.eye(n)
        vb = VFo[e * vf_es:(e + 1) * vf_es]; vfull = vb[:vf_ld * n].reshape(n, vf_ld).T
        Vf = vfull[:m]
        v_bits = bits(Vf.copy()).tobytes() == bits(V).tobytes()
        v_pois = bool(np.all(bits(vfull[m:].copy()) == bits(POISON)[()])) and bool(np.all(bits(vb[vf_ld * n:].copy()) == bits(POISON)[()]))
        tbk = TTo[e * t_es:(e + 1) * t_es]; tfull = tbk[:t_ld * n].reshape(n, t_ld).T
        T = tfull[:n].copy()
        t_pois = bool(np.all(bits(tfull[n:].copy()) == bits(POISON)[()])) and bool(np.all(bits(tbk[t_ld * n:].copy()) == bits(POISON)[()]))
        t_low = bool(np.all(bits(T)[np.tril_indices(n, -1)] == 0))   # +0.0 exactly
        Tr = larft(V, tau)
        dT = np.abs(T - Tr).max() / max(np.abs(Tr).max(), 1e-300) if np.all(np.isfinite(T)) else np.inf   # (T = 0: tau = 0)
        diag_ok = bool(np.all(np.diag(T) == tau))
        # I - V T V^T: orthogonal, its first n columns Q (the Householder product), A0 = Q R
        H = np.eye(m) - V @ (T @ V.T)
        orthH = np.linalg.norm(H.T @ H - np.eye(m)) / (m * EPS)
        Q = np.eye(m)[:, :n].copy()
        for j in reversed(range(n)):
            Q -= tau[j] * np.outer(V[:, j], V[:, j] @ Q)
        dQ = np.abs(H[:, :n] - Q).max() / EPS
        R = np.triu(out[:n])
        res = np.linalg.norm(A0s[e] - H[:, :n] @ R) / (np.linalg.norm(A0s[e]) * n * EPS)
        # VT = Vf T (from the returned Vf and T): normwise max |VT - Vf T| / max |Vf T|, and
        # componentwise |VT - Vf T| / (|Vf| |T|) in eps; poison outside rows x cols and between entries
        wb = VTo[e * vt_es:(e + 1) * vt_es]; wfull = wb[:vt_ld * n].reshape(n, vt_ld).T
        VT = wfull[:m].copy()
        vt_pois = bool(np.all(bits(wfull[m:].copy()) == bits(POISON)[()])) and bool(np.all(bits(wb[vt_ld * n:].copy()) == bits(POISON)[()]))
        Vfc = Vf.copy(); ref = Vfc @ T; bound = np.abs(Vfc) @ np.abs(T)
        if np.all(np.isfinite(VT)):
            dif = np.abs(VT - ref)
            dVT = dif.max() / max(np.abs(ref).max(), 1e-300)
            cVT = (dif / np.where(bound > 0, bound, 1.0)).max() / EPS if np.all(dif[bound == 0] == 0) else np.inf
        else:
            dVT = cVT = np.inf
        RES['vt_norm'] = max(RES.get('vt_norm', 0.0), dVT); RES['vt_comp'] = max(RES.get('vt_comp', 0.0), cVT)
        g = v_bits and v_pois and t_pois and t_low and diag_ok and dT < 1e-13 and orthH < 30 and dQ < 100 * n and res < 30 \
            and vt_pois and dVT < 1e-14 and cVT < 2 * n
        good &= g
        msg.append(f"  e{e}: flag {fl_e}{' (panel result intact: ' + ('yes' if pan else 'NO') + ')' if fl_e == 1 else ''}, "
                   f"Vf {'== V bitwise' if v_bits else 'DIFFERS from V'}, Vf poison {'intact' if v_pois else 'TOUCHED'}, "
                   f"T poison {'intact' if t_pois else 'TOUCHED'}, T below diag {'+0' if t_low else 'NOT ZERO'}, "
                   f"T_ii == tau {'yes' if diag_ok else 'NO'}; T vs larft {dT:.2e} (rel max); "
                   f"I - V T V^T: orth {orthH:.2f} (m eps), first cols vs Householder Q {dQ:.1f} eps, resid {res:.2f} (n eps); "
                   f"VT vs Vf T {dVT:.2e} (rel max), {cVT:.2f} eps (componentwise), VT poison {'intact' if vt_pois else 'TOUCHED'}")
        if not good: msg.append(f"  e{e}: FAIL (expected flag {expect[e]})")
        ok &= good
    print("\n".join(msg), flush=True)
    return bool(ok)

if __name__ == "__main__":
    args = sys.argv[1:]; binp = os.path.join(here, "cholqr_lib_test"); prevp = None
    if args and args[0] == "--bin": binp = os.path.join(here, args[1]); args = args[2:]
    if args and args[0] == "--prev": prevp = os.path.join(here, args[1]); args = args[2:]   # vf cases: a build of novt.py's source
    if args and args[0] == "--list": print(" ".join(C), " ".join(VC)); sys.exit(0)
    names = list(C) if args == ["all"] else list(VC) if args == ["vf"] else args
    bad = [nm for nm in names if not (run_vf(nm, binp, prevp) if nm in VC else run(nm, binp))]
    print(BLOB, os.path.basename(binp))
    if RES: print(f"VT vs Vf T: worst {RES['vt_norm']:.2e} (rel max), {RES['vt_comp']:.2f} eps (componentwise)")
    print(f"{len(names) - len(bad)} passed, {len(bad)} failed" + (f": {' '.join(bad)}" if bad else ""))
    sys.exit(1 if bad else 0)
