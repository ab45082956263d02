// Shared by the solver family's kernel sources (solver.cu, chol.cu): the job description every
// solver kernel takes (`Sol`, mirrored by `Sol` in src/solver/cuda.rs) and the sizes they
// agree on. Prepended to each of them after lapack.cuh (src/kernels.rs).

#define MAXT 256
#define LEAF 32
#define PW 64       // most columns of an LU panel
#define SWAPC 1024  // most interchanges of one permutation step

struct Sol {
    u64 a;               // entry e0's block
    i64 ld, es;          // leading dimension, distance between entries (elements)
    i64 rows, cols;
    u64 piv;  i64 piv_s; // entry e0's pivots (i32) and the distance between entries
    u64 info; i64 info_s;
    u64 slots;           // lu: the exchange slots; perm/gather: the gather lists
    int k0, k1;          // lu: first row/column; swap: interchanges k0 .. k1
    int pivot, reverse, lower, grid, ne, smem_rows;
    int aux;             // lu: the leaf's number (its exchange tag); perm/gather: i32s per entry
    int pad;
    u64 w; i64 wld, wes; // take: the block of L in the workspace; trsolve: the factor
    u64 u; i64 uld, ues; // cholx: the diagonal block's update (0: none); lu_regs: uld / ues
                         // columns left / right of the leaf take its interchanges too
};
