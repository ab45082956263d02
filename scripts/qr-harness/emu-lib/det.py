#!/usr/bin/env python3
# Bitwise reproducibility across builds/runs (races and stale shared-memory reads show up as
# differences): det.py BIN1,BIN2,... CASE...  (case names from cases.py)
import sys, os, subprocess, numpy as np, hashlib, tempfile
import cases
bins = sys.argv[1].split(","); names = sys.argv[2:]
d = tempfile.mkdtemp(prefix="cqdet"); fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
bad = 0
for nm in names:
    m, n, lda, cqb, mks, expect, extra = cases.C[nm]
    ne = len(mks); es = lda * n + extra; tau_s = n + 3
    Abuf = np.full(ne * es, cases.SENT); Tbuf = np.full(ne * tau_s, cases.SENT)
    for e, mk in enumerate(mks):
        blk = np.full((n, lda), cases.SENT); blk[:, :m] = mk(m, n).T; Abuf[e * es: e * es + lda * n] = blk.ravel()
    with open(fin, "wb") as f:
        np.array([m, n, lda, ne, es, cqb, tau_s], np.int64).tofile(f); Abuf.tofile(f); Tbuf.tofile(f)
    hs = []
    for b in bins:
        subprocess.run([os.path.join(cases.here, b), fin, fout], check=True, capture_output=True)
        hs.append(hashlib.sha1(open(fout, "rb").read()).hexdigest()[:10])
    same = len(set(hs)) == 1; bad += not same
    print(nm, " ".join(hs), "identical" if same else "DIFFER", flush=True)
os.remove(fin); os.path.exists(fout) and os.remove(fout); os.rmdir(d)
print(f"{len(names) - bad} passed, {bad} failed")
