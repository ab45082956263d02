// Kernels for luw2bench.cu: lu_warp (the Turing path) as sol_luw0_*, lu_warp2 as sol_luw2_*
// (solver.cu's sol_luw_* run lu_warp2 on sm_80+), and lu_warp2's block sizes for timing.
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw0_s(Sol j) { lu_warp<float>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw0_d(Sol j) { lu_warp<double>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw0_c(Sol j) { lu_warp<float2>(j); }
extern "C" __global__ void __launch_bounds__(128, 1) sol_luw0_z(Sol j) { lu_warp<double2>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2_s(Sol j) { lu_warp2<float, 32>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2_d(Sol j) { lu_warp2<double, 32>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2_c(Sol j) { lu_warp2<float2, 32>(j); }
extern "C" __global__ void __launch_bounds__(128, 1) sol_luw2_z(Sol j) { lu_warp2<double2, 8>(j); }
#ifdef LUW2_VARIANTS
// The block size B for double, for timing.
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2b4_d(Sol j) { lu_warp2<double, 4>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2b8_d(Sol j) { lu_warp2<double, 8>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2b16_d(Sol j) { lu_warp2<double, 16>(j); }
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2b32_d(Sol j) { lu_warp2<double, 32>(j); }
// The pivot search without the low-word reduction when one lane has the largest high word.
extern "C" __global__ void __launch_bounds__(128, 5) sol_luw2f_d(Sol j) { lu_warp2<double, 32, true>(j); }
#endif
