# Check the emulated run: residual and orthogonality (units of n eps) with Q from V and tau.
# usage: check.py m n (in the folder of a0.bin and out.bin)
import numpy as np, sys
m, n = int(sys.argv[1]), int(sys.argv[2])
A0 = np.fromfile('a0.bin').reshape(n, m).T
d = np.fromfile('out.bin'); out = d[:m*n].reshape(n, m).T; tau = d[m*n:]
V = np.tril(out, -1); V[:n, :n] += np.eye(n)
Q = np.eye(m)[:, :n].copy()
for j in reversed(range(n)):
    Q -= tau[j] * np.outer(V[:, j], V[:, j] @ Q)
R = np.triu(out[:n]); eps = 2.220446049250313e-16
print('resid %.2f orth %.2f nonfinite %d tau range %.3f..%.3f' % (np.linalg.norm(A0 - Q @ R) / (np.linalg.norm(A0) * n * eps),
      np.linalg.norm(Q.T @ Q - np.eye(n)) / (n * eps), (~np.isfinite(d)).sum(), tau.min(), tau.max()))
