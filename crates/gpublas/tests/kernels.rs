//! Every kernel source compiles with NVRTC for the architectures gpublas targets. Runs without
//! a GPU (CI installs NVRTC from the `nvidia-cuda-nvrtc` wheel), so a kernel that does not
//! compile fails the build.

#[test]
fn every_kernel_compiles_for_sm80_and_sm90() {
    for arch in ["sm_80", "sm_90"] {
        let modules = gpublas::kernels::compile_all(arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(modules.len(), gpublas::kernels::MODULES.len());
        for (name, ptx) in modules {
            assert!(
                ptx > 1000,
                "{name} for {arch} produced only {ptx} bytes of PTX"
            );
        }
    }
}
